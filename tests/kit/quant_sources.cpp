#include "quant_sources.hpp"

#include <array>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "dequant/dequant.hpp"
#include "gguf_writer.hpp"

namespace modelcat::kit {

namespace {

// Shapes after real models, shrunk: Llama 3.1 8B (32 layers, GQA 4), Llama 3.2 3B
// (28, tied), Llama 3.1 70B (80 layers, 64/8 heads: llama.cpp's 70B class), Qwen2.5
// (biases), Qwen3 (q/k norms, tied), Gemma (tied, one KV head), Gemma 3 (post norms),
// Falcon 7B (fused QKV, one KV head), Mixtral 8x7B, Qwen3-30B-A3B (more experts).
const std::array kSources{
    QuantSource{"llama-32L", "llama", 32, 256, 8, 2, 512, 512},
    QuantSource{"llama-28L-tied", "llama", 28, 256, 8, 4, 512, 512, 0, 0, true},
    QuantSource{"llama-80L-gqa8", "llama", 80, 256, 64, 8, 256, 256},
    QuantSource{"llama-hidden320", "llama", 12, 320, 10, 2, 800, 512},
    QuantSource{"llama-ffn200", "llama", 8, 256, 8, 2, 200, 512},
    QuantSource{"qwen2-24L", "qwen2", 24, 256, 8, 2, 512, 512},
    QuantSource{"qwen3-36L-tied", "qwen3", 36, 256, 8, 2, 512, 512, 0, 0, true},
    QuantSource{"gemma-18L", "gemma", 18, 256, 8, 1, 512, 512, 0, 0, true},
    QuantSource{"gemma3-26L", "gemma3", 26, 256, 4, 1, 512, 512, 0, 0, true},
    QuantSource{"falcon-32L", "falcon", 32, 256, 8, 1, 512, 512},
    QuantSource{"mixtral-8x-16L", "llama", 16, 256, 8, 2, 256, 512, 8, 256},
    QuantSource{"qwen3moe-16x-8L", "qwen3moe", 8, 256, 8, 2, 256, 512, 16, 256},
};

struct Spec {
    std::string name;
    std::vector<uint64_t> ne;  // GGUF order: ne[0] is the row length
};

uint32_t head_dim(const QuantSource& m) { return m.hidden / m.heads; }

void add_attention(std::vector<Spec>& v, const QuantSource& m, const std::string& p) {
    const uint64_t e = m.hidden, q = uint64_t{m.heads} * head_dim(m), kv = uint64_t{m.kv_heads} * head_dim(m);
    v.push_back({p + "attn_norm.weight", {e}});
    if (m.architecture == "falcon") {
        v.push_back({p + "attn_norm.bias", {e}});
        v.push_back({p + "attn_qkv.weight", {e, q + 2 * kv}});
        v.push_back({p + "attn_output.weight", {q, e}});
        return;
    }
    v.push_back({p + "attn_q.weight", {e, q}});
    v.push_back({p + "attn_k.weight", {e, kv}});
    v.push_back({p + "attn_v.weight", {e, kv}});
    v.push_back({p + "attn_output.weight", {q, e}});
    if (m.architecture == "qwen2")
        for (auto [n, rows] : {std::pair{"attn_q", q}, {"attn_k", kv}, {"attn_v", kv}}) v.push_back({p + n + ".bias", {rows}});
    if (m.architecture == "qwen3" || m.architecture == "qwen3moe" || m.architecture == "gemma3") {
        v.push_back({p + "attn_q_norm.weight", {head_dim(m)}});
        v.push_back({p + "attn_k_norm.weight", {head_dim(m)}});
    }
    if (m.architecture == "gemma3") v.push_back({p + "post_attention_norm.weight", {e}});
}

void add_ffn(std::vector<Spec>& v, const QuantSource& m, const std::string& p) {
    const uint64_t e = m.hidden;
    if (m.architecture != "falcon") v.push_back({p + "ffn_norm.weight", {e}});
    if (m.experts > 0) {
        const uint64_t x = m.experts, f = m.expert_ffn;
        v.push_back({p + "ffn_gate_inp.weight", {e, x}});
        v.push_back({p + "ffn_gate_exps.weight", {e, f, x}});
        v.push_back({p + "ffn_up_exps.weight", {e, f, x}});
        v.push_back({p + "ffn_down_exps.weight", {f, e, x}});
    } else {
        if (m.architecture != "falcon") v.push_back({p + "ffn_gate.weight", {e, m.ffn}});
        v.push_back({p + "ffn_up.weight", {e, m.ffn}});
        v.push_back({p + "ffn_down.weight", {m.ffn, e}});
    }
    if (m.architecture == "gemma3") v.push_back({p + "post_ffw_norm.weight", {e}});
}

std::vector<Spec> specs(const QuantSource& m) {
    std::vector<Spec> v{{"token_embd.weight", {m.hidden, m.vocab}}};
    if (m.architecture == "llama" && m.experts == 0) v.push_back({"rope_freqs.weight", {head_dim(m) / 2}});
    for (uint32_t l = 0; l < m.layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        add_attention(v, m, p);
        add_ffn(v, m, p);
    }
    v.push_back({"output_norm.weight", {m.hidden}});
    if (m.architecture == "falcon") v.push_back({"output_norm.bias", {m.hidden}});
    if (!m.tied) v.push_back({"output.weight", {m.hidden, m.vocab}});
    return v;
}

uint64_t elements(const Spec& s) {
    uint64_t n = 1;
    for (uint64_t d : s.ne) n *= d;
    return n;
}

// llama-quantize quantizes these (and requires an importance matrix for them in the IQ1/IQ2 types).
bool quantizable(const Spec& s) {
    return s.ne.size() >= 2 && s.name.ends_with(".weight") && s.name.find("_norm.") == std::string::npos &&
           s.name.find("ffn_gate_inp") == std::string::npos;
}

// Small values around 0 (norms around 1), from a hash of the name and the index.
std::vector<uint8_t> tensor_bytes(const Spec& s) {
    uint64_t seed = 0xcbf29ce484222325ull;
    for (char c : s.name) seed = (seed ^ static_cast<uint8_t>(c)) * 0x100000001B3ull;
    const bool matrix = s.ne.size() >= 2;
    const uint64_t n = elements(s);
    std::vector<uint8_t> out(n * (matrix ? 2 : 4));
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t z = (seed + i) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
        const float x = static_cast<float>(static_cast<double>(z >> 40) / 16777216.0 - 0.5);
        if (matrix) {
            const uint16_t b = dequant::float_to_bf16(0.04f * x);
            std::memcpy(out.data() + 2 * i, &b, 2);
        } else {
            const float f = s.name.ends_with(".bias") ? 0.01f * x : 1.0f + 0.1f * x;
            std::memcpy(out.data() + 4 * i, &f, 4);
        }
    }
    return out;
}

void add_hparams(GgufWriter& w, const QuantSource& m) {
    const std::string a = m.architecture + ".";
    w.add_kv(a + "context_length", GgufValue::u32(4096));
    w.add_kv(a + "embedding_length", GgufValue::u32(m.hidden));
    w.add_kv(a + "block_count", GgufValue::u32(m.layers));
    w.add_kv(a + "feed_forward_length", GgufValue::u32(m.experts > 0 ? m.expert_ffn : m.ffn));
    w.add_kv(a + "attention.head_count", GgufValue::u32(m.heads));
    w.add_kv(a + "attention.head_count_kv", GgufValue::u32(m.kv_heads));
    w.add_kv(a + "attention.key_length", GgufValue::u32(head_dim(m)));
    w.add_kv(a + "attention.value_length", GgufValue::u32(head_dim(m)));
    w.add_kv(a + "rope.dimension_count", GgufValue::u32(head_dim(m)));
    w.add_kv(a + (m.architecture == "falcon" ? "attention.layer_norm_epsilon" : "attention.layer_norm_rms_epsilon"),
             GgufValue::f32(1e-5f));
    w.add_kv(a + "vocab_size", GgufValue::u32(m.vocab));
    if (m.experts > 0) {
        w.add_kv(a + "expert_count", GgufValue::u32(m.experts));
        w.add_kv(a + "expert_used_count", GgufValue::u32(2));
        w.add_kv(a + "expert_feed_forward_length", GgufValue::u32(m.expert_ffn));
    }
}

template <typename T>
void put(std::ofstream& f, T v) {
    f.write(reinterpret_cast<const char*>(&v), sizeof v);  // little-endian host, as llama.cpp reads it
}

}  // namespace

std::span<const QuantSource> quant_sources() { return kSources; }

void write_quant_source(const std::filesystem::path& path, const QuantSource& m) {
    GgufWriter w(3);
    w.add_kv("general.architecture", GgufValue::str(m.architecture));
    w.add_kv("general.name", GgufValue::str(m.name));
    w.add_kv("general.file_type", GgufValue::u32(32));
    add_hparams(w, m);
    const std::vector<Spec> all = specs(m);
    for (const Spec& s : all) w.add_tensor(s.name, s.ne, s.ne.size() >= 2 ? kBf16 : kF32);
    w.write(path, DataMode::sparse);
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    for (size_t i = 0; i < all.size(); ++i) {
        const std::vector<uint8_t> bytes = tensor_bytes(all[i]);
        f.seekp(static_cast<std::streamoff>(w.data_start() + w.tensors()[i].offset));
        f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    if (!f) throw std::runtime_error("write_quant_source: cannot write " + path.string());
}

void write_uniform_imatrix(const std::filesystem::path& path, const QuantSource& m) {
    std::vector<Spec> entries;
    for (const Spec& s : specs(m))
        if (quantizable(s)) entries.push_back(s);
    std::ofstream f(path, std::ios::binary);
    put<int32_t>(f, static_cast<int32_t>(entries.size()));
    for (const Spec& s : entries) {
        put<int32_t>(f, static_cast<int32_t>(s.name.size()));
        f.write(s.name.data(), static_cast<std::streamsize>(s.name.size()));
        const uint64_t values = s.ne[0] * (s.ne.size() > 2 ? s.ne[2] : 1);  // per column, per expert
        put<int32_t>(f, 1);                                                 // calls
        put<int32_t>(f, static_cast<int32_t>(values));
        for (uint64_t i = 0; i < values; ++i) put<float>(f, 1.0f);
    }
    const std::string dataset = "uniform";
    put<int32_t>(f, 1);  // chunks
    put<int32_t>(f, static_cast<int32_t>(dataset.size()));
    f.write(dataset.data(), static_cast<std::streamsize>(dataset.size()));
    if (!f) throw std::runtime_error("write_uniform_imatrix: cannot write " + path.string());
}

}  // namespace modelcat::kit
