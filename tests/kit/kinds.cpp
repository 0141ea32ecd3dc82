#include "kinds.hpp"

namespace modelcat::kit {

namespace {

constexpr uint64_t kEmbd = 256, kVocab = 64, kFf = 512;

GgufValue str(std::string s) { return GgufValue::str(std::move(s)); }
GgufValue u32(uint32_t v) { return GgufValue::u32(v); }

std::vector<std::string> tiny_vocab() {
    std::vector<std::string> t;
    for (uint64_t i = 0; i < kVocab; ++i) t.push_back("tok" + std::to_string(i));
    return t;
}

}  // namespace

GgufWriter tiny_llama(const std::string& name, uint32_t weight_type, const std::string& template_text) {
    GgufWriter w;
    w.add_kv("general.architecture", str("llama"));
    w.add_kv("general.type", str("model"));
    w.add_kv("general.name", str(name));
    w.add_kv("llama.block_count", u32(2));
    w.add_kv("llama.context_length", u32(4096));
    w.add_kv("llama.embedding_length", u32(kEmbd));
    w.add_kv("llama.feed_forward_length", u32(kFf));
    w.add_kv("llama.attention.head_count", u32(4));
    w.add_kv("llama.attention.head_count_kv", u32(2));
    w.add_kv("general.file_type", u32(weight_type == 8 ? 7 : 15));
    w.add_kv("tokenizer.ggml.model", str("gpt2"));
    w.add_kv("tokenizer.ggml.tokens", GgufValue::string_array(tiny_vocab()));
    w.add_kv("tokenizer.chat_template", str(template_text));
    w.add_tensor("token_embd.weight", {kEmbd, kVocab}, weight_type);
    for (int l = 0; l < 2; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        w.add_tensor(b + "attn_norm.weight", {kEmbd}, kF32);
        w.add_tensor(b + "attn_q.weight", {kEmbd, kEmbd}, weight_type);
        w.add_tensor(b + "attn_k.weight", {kEmbd, 128}, weight_type);
        w.add_tensor(b + "attn_v.weight", {kEmbd, 128}, weight_type);
        w.add_tensor(b + "attn_output.weight", {kEmbd, kEmbd}, weight_type);
        w.add_tensor(b + "ffn_norm.weight", {kEmbd}, kF32);
        w.add_tensor(b + "ffn_up.weight", {kEmbd, kFf}, weight_type);
        w.add_tensor(b + "ffn_down.weight", {kFf, kEmbd}, weight_type);
    }
    w.add_tensor("output_norm.weight", {kEmbd}, kF32);
    return w;
}

GgufWriter tiny_mmproj() {
    GgufWriter w;
    w.add_kv("general.architecture", str("clip"));
    w.add_kv("general.name", str("tiny vision tower"));
    w.add_kv("clip.has_vision_encoder", GgufValue::boolean(true));
    w.add_kv("clip.projector_type", str("mlp"));
    w.add_kv("clip.vision.image_size", u32(224));
    w.add_kv("clip.vision.block_count", u32(1));
    w.add_kv("general.file_type", u32(1));
    w.add_tensor("v.patch_embd.weight", {14, 14, 3, 64}, kF16);
    w.add_tensor("v.blk.0.attn_q.weight", {64, 64}, kF16);
    w.add_tensor("mm.0.weight", {64, kEmbd}, kF16);
    w.add_tensor("mm.0.bias", {kEmbd}, kF32);
    return w;
}

GgufWriter tiny_lora(float alpha) {
    GgufWriter w;
    w.add_kv("general.architecture", str("llama"));
    w.add_kv("general.type", str("adapter"));
    w.add_kv("adapter.type", str("lora"));
    w.add_kv("adapter.lora.alpha", GgufValue::f32(alpha));
    for (int l = 0; l < 2; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".attn_q.weight.";
        w.add_tensor(b + "lora_a", {kEmbd, 8}, kF32);
        w.add_tensor(b + "lora_b", {8, kEmbd}, kF32);
    }
    return w;
}

GgufWriter tiny_imatrix() {
    GgufWriter w;
    w.add_kv("general.type", str("imatrix"));
    w.add_kv("imatrix.chunk_count", u32(125));
    w.add_kv("imatrix.chunk_size", u32(512));
    w.add_kv("imatrix.datasets", GgufValue::array(GgufType::string, {str("calibration.txt")}));
    for (const char* t : {"blk.0.attn_q.weight", "blk.0.ffn_down.weight"}) {
        w.add_tensor(std::string(t) + ".in_sum2", {kEmbd, 1}, kF32);
        w.add_tensor(std::string(t) + ".counts", {1, 1}, kF32);
    }
    return w;
}

}  // namespace modelcat::kit
