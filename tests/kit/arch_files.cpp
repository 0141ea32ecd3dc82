#include "arch_files.hpp"

#include <functional>
#include <optional>
#include <stdexcept>

#include "bpe_vocab.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::kit {

namespace {

constexpr uint32_t kTypeQ4_0 = 2, kTypeIQ4_NL = 20, kTypeMXFP4 = 39;  // beside gguf_writer.hpp's kF32, kF16, kQ8_0, kQ4_K


// One model's hyperparameters, named as llama.cpp's loader names them.
struct ArchShape {
    std::string name, arch;
    uint32_t type;  // ggml type of the weight matrices (a type whose block does not divide a row falls back to kQ8_0, then kF16)
    uint64_t embd, layers, heads, kv_heads, head_dim, ff, vocab, ctx_train = 32768;
    bool tied = false;
    uint64_t experts = 0, experts_used = 0, ff_exp = 0, shared = 0, dense_lead = 0;
    uint64_t swa = 0, swa_pattern = 0;                          // sliding window; pattern 0: the architecture's default
    uint64_t q_lora = 0, kv_lora = 0, rope = 0, k_mla = 0, v_mla = 0;  // MLA
    uint64_t conv = 0, inner = 0, state = 0, groups = 0, dt_rank = 0;  // Mamba-2
    uint64_t shortconv = 0;                                            // LFM2: conv layers where kv_heads_per_layer is 0
    std::vector<uint32_t> kv_heads_per_layer = {};
    uint32_t expert_type = 0;  // 0: `type`
};

// Adds tensors in llama.cpp's order with the model's weight type where its blocks fit.
class ArchTensors {
public:
    ArchTensors(GgufWriter& w, const ArchShape& s) : w_(w), s_(s) {}
    void weight(const std::string& name, std::vector<uint64_t> dims, std::optional<uint32_t> type = std::nullopt) {
        uint32_t t = type.value_or(s_.type);
        for (uint32_t fallback : {t, kQ8_0, kF16}) {
            t = fallback;
            if (dims[0] % model::find_ggml_type(t)->block_size == 0) break;
        }
        w_.add_tensor(name, std::move(dims), t);
    }
    void f32(const std::string& name, std::vector<uint64_t> dims) { w_.add_tensor(name, std::move(dims), kF32); }
    void layer_weight(uint64_t i, const std::string& part, std::vector<uint64_t> dims, std::optional<uint32_t> type = std::nullopt) {
        weight(blk(i, part) + ".weight", std::move(dims), type);
    }
    void layer_f32(uint64_t i, const std::string& part, std::vector<uint64_t> dims) { f32(blk(i, part), std::move(dims)); }
    static std::string blk(uint64_t i, const std::string& part) { return "blk." + std::to_string(i) + "." + part; }

private:
    GgufWriter& w_;
    const ArchShape& s_;
};

uint64_t q_dim(const ArchShape& s) { return s.heads * s.head_dim; }
uint64_t kv_dim(const ArchShape& s, uint64_t i) {
    return (s.kv_heads_per_layer.empty() ? s.kv_heads : s.kv_heads_per_layer[i]) * s.head_dim;
}

void embedding_tensors(ArchTensors& t, const ArchShape& s, const std::string& norm = "output_norm.weight") {
    t.weight("token_embd.weight", {s.embd, s.vocab});
    t.f32(norm, {s.embd});
    if (!s.tied) t.weight("output.weight", {s.embd, s.vocab});
}

void attention_tensors(ArchTensors& t, const ArchShape& s, uint64_t i, bool bias, bool qk_norm) {
    t.layer_weight(i, "attn_q", {s.embd, q_dim(s)});
    t.layer_weight(i, "attn_k", {s.embd, kv_dim(s, i)});
    t.layer_weight(i, "attn_v", {s.embd, kv_dim(s, i)});
    if (bias) {
        t.layer_f32(i, "attn_q.bias", {q_dim(s)});
        t.layer_f32(i, "attn_k.bias", {kv_dim(s, i)});
        t.layer_f32(i, "attn_v.bias", {kv_dim(s, i)});
    }
    if (qk_norm) {
        t.layer_f32(i, "attn_q_norm.weight", {s.head_dim});
        t.layer_f32(i, "attn_k_norm.weight", {s.head_dim});
    }
    t.layer_weight(i, "attn_output", {q_dim(s), s.embd});
}

void dense_ffn_tensors(ArchTensors& t, const ArchShape& s, uint64_t i, uint64_t ff) {
    t.layer_weight(i, "ffn_gate", {s.embd, ff});
    t.layer_weight(i, "ffn_down", {ff, s.embd});
    t.layer_weight(i, "ffn_up", {s.embd, ff});
}

void expert_tensors(ArchTensors& t, const ArchShape& s, uint64_t i, bool bias) {
    const uint32_t type = s.expert_type ? s.expert_type : s.type;
    t.layer_f32(i, "ffn_gate_inp.weight", {s.embd, s.experts});
    if (bias) t.layer_f32(i, "ffn_gate_inp.bias", {s.experts});
    t.layer_weight(i, "ffn_gate_exps", {s.embd, s.ff_exp, s.experts}, type);
    t.layer_weight(i, "ffn_down_exps", {s.ff_exp, s.embd, s.experts}, type);
    t.layer_weight(i, "ffn_up_exps", {s.embd, s.ff_exp, s.experts}, type);
    if (bias) {
        t.layer_f32(i, "ffn_gate_exps.bias", {s.ff_exp, s.experts});
        t.layer_f32(i, "ffn_down_exps.bias", {s.embd, s.experts});
        t.layer_f32(i, "ffn_up_exps.bias", {s.ff_exp, s.experts});
    }
}

// llama (and Mistral, Mixtral), qwen2, qwen3, qwen3moe: pre-norm blocks of attention and a dense or expert FFN.
void decoder_tensors(ArchTensors& t, const ArchShape& s) {
    embedding_tensors(t, s);
    for (uint64_t i = 0; i < s.layers; ++i) {
        t.layer_f32(i, "attn_norm.weight", {s.embd});
        attention_tensors(t, s, i, s.arch == "qwen2", s.arch == "qwen3" || s.arch == "qwen3moe");
        t.layer_f32(i, "ffn_norm.weight", {s.embd});
        if (s.experts) expert_tensors(t, s, i, false);
        else dense_ffn_tensors(t, s, i, s.ff);
    }
}

void gemma_tensors(ArchTensors& t, const ArchShape& s) {
    embedding_tensors(t, s);
    for (uint64_t i = 0; i < s.layers; ++i) {
        t.layer_f32(i, "attn_norm.weight", {s.embd});
        attention_tensors(t, s, i, false, s.arch == "gemma3");
        t.layer_f32(i, "post_attention_norm.weight", {s.embd});
        t.layer_f32(i, "ffn_norm.weight", {s.embd});
        dense_ffn_tensors(t, s, i, s.ff);
        t.layer_f32(i, "post_ffw_norm.weight", {s.embd});
    }
}

void phi3_tensors(ArchTensors& t, const ArchShape& s) {
    embedding_tensors(t, s);
    for (uint64_t i = 0; i < s.layers; ++i) {
        t.layer_f32(i, "attn_norm.weight", {s.embd});
        t.layer_weight(i, "attn_qkv", {s.embd, q_dim(s) + 2 * kv_dim(s, i)});
        t.layer_weight(i, "attn_output", {q_dim(s), s.embd});
        t.layer_f32(i, "ffn_norm.weight", {s.embd});
        t.layer_weight(i, "ffn_down", {s.ff, s.embd});
        t.layer_weight(i, "ffn_up", {s.embd, 2 * s.ff});
    }
}

void deepseek2_tensors(ArchTensors& t, const ArchShape& s) {
    embedding_tensors(t, s);
    for (uint64_t i = 0; i < s.layers; ++i) {
        t.layer_f32(i, "attn_norm.weight", {s.embd});
        if (s.q_lora) t.layer_f32(i, "attn_q_a_norm.weight", {s.q_lora});
        t.layer_f32(i, "attn_kv_a_norm.weight", {s.kv_lora});
        if (s.q_lora) {
            t.layer_weight(i, "attn_q_a", {s.embd, s.q_lora});
            t.layer_weight(i, "attn_q_b", {s.q_lora, s.heads * s.k_mla});
        } else {
            t.layer_weight(i, "attn_q", {s.embd, s.heads * s.k_mla});
        }
        t.layer_weight(i, "attn_kv_a_mqa", {s.embd, s.kv_lora + s.rope});
        t.layer_weight(i, "attn_k_b", {s.k_mla - s.rope, s.kv_lora, s.heads});
        t.layer_weight(i, "attn_v_b", {s.kv_lora, s.v_mla, s.heads});
        t.layer_weight(i, "attn_output", {s.heads * s.v_mla, s.embd});
        t.layer_f32(i, "ffn_norm.weight", {s.embd});
        if (i < s.dense_lead) {
            dense_ffn_tensors(t, s, i, s.ff);
            continue;
        }
        expert_tensors(t, s, i, false);
        t.layer_weight(i, "ffn_gate_shexp", {s.embd, s.ff_exp * s.shared});
        t.layer_weight(i, "ffn_down_shexp", {s.ff_exp * s.shared, s.embd});
        t.layer_weight(i, "ffn_up_shexp", {s.embd, s.ff_exp * s.shared});
    }
}

void gpt_oss_tensors(ArchTensors& t, const ArchShape& s) {
    embedding_tensors(t, s);
    for (uint64_t i = 0; i < s.layers; ++i) {
        t.layer_f32(i, "attn_norm.weight", {s.embd});
        t.layer_f32(i, "post_attention_norm.weight", {s.embd});
        attention_tensors(t, s, i, true, false);
        t.layer_f32(i, "attn_output.bias", {s.embd});
        t.layer_f32(i, "attn_sinks.weight", {s.heads});
        expert_tensors(t, s, i, true);
    }
}

void mamba2_tensors(ArchTensors& t, const ArchShape& s) {
    embedding_tensors(t, s);
    const uint64_t conv_dim = s.inner + 2 * s.groups * s.state;
    for (uint64_t i = 0; i < s.layers; ++i) {
        t.layer_f32(i, "attn_norm.weight", {s.embd});
        t.layer_weight(i, "ssm_in", {s.embd, s.inner + conv_dim + s.dt_rank});
        t.layer_f32(i, "ssm_conv1d.weight", {s.conv, conv_dim});
        t.layer_f32(i, "ssm_conv1d.bias", {conv_dim});
        t.layer_f32(i, "ssm_dt.bias", {s.dt_rank});
        t.layer_f32(i, "ssm_a", {1, s.dt_rank});
        t.layer_f32(i, "ssm_d", {1, s.dt_rank});
        t.layer_f32(i, "ssm_norm.weight", {s.inner / s.groups, s.groups});
        t.layer_weight(i, "ssm_out", {s.inner, s.embd});
    }
}

void lfm2_tensors(ArchTensors& t, const ArchShape& s) {
    embedding_tensors(t, s, "token_embd_norm.weight");
    for (uint64_t i = 0; i < s.layers; ++i) {
        t.layer_f32(i, "ffn_norm.weight", {s.embd});
        dense_ffn_tensors(t, s, i, s.ff);
        t.layer_f32(i, "attn_norm.weight", {s.embd});
        if (s.kv_heads_per_layer[i] != 0) {
            t.layer_f32(i, "attn_q_norm.weight", {s.head_dim});
            t.layer_f32(i, "attn_k_norm.weight", {s.head_dim});
            t.layer_weight(i, "attn_q", {s.embd, s.embd});
            t.layer_weight(i, "attn_k", {s.embd, kv_dim(s, i)});
            t.layer_weight(i, "attn_v", {s.embd, kv_dim(s, i)});
            t.layer_weight(i, "attn_output", {s.embd, s.embd});
        } else {
            t.layer_f32(i, "shortconv.conv.weight", {s.shortconv, s.embd});
            t.layer_weight(i, "shortconv.in_proj", {s.embd, 3 * s.embd});
            t.layer_weight(i, "shortconv.out_proj", {s.embd, s.embd});
        }
    }
}

void add_hparams(GgufWriter& w, const ArchShape& s) {
    const std::string a = s.arch + ".";
    auto u32 = [&](const std::string& key, uint64_t v) { w.add_kv(a + key, GgufValue::u32(static_cast<uint32_t>(v))); };
    u32("context_length", s.ctx_train);
    u32("embedding_length", s.embd);
    u32("block_count", s.layers);
    u32("feed_forward_length", s.ff);
    u32("attention.head_count", s.heads);
    if (!s.kv_heads_per_layer.empty()) {
        std::vector<GgufValue> v;
        for (uint32_t n : s.kv_heads_per_layer) v.push_back(GgufValue::u32(n));
        w.add_kv(a + "attention.head_count_kv", GgufValue::array(GgufType::u32, std::move(v)));
    } else {
        u32("attention.head_count_kv", s.kv_heads);
    }
    w.add_kv(a + "attention.layer_norm_rms_epsilon", GgufValue::f32(1e-5f));
    w.add_kv(a + "rope.freq_base", GgufValue::f32(10000.0f));
    if (s.heads) {
        u32("attention.key_length", s.kv_lora ? s.kv_lora + s.rope : s.head_dim);
        u32("attention.value_length", s.kv_lora ? s.kv_lora : s.head_dim);
        u32("rope.dimension_count", s.rope ? s.rope : s.head_dim);
    }
    u32("vocab_size", s.vocab);
    if (s.experts) {
        u32("expert_count", s.experts);
        u32("expert_used_count", s.experts_used);
        if (s.arch != "llama") u32("expert_feed_forward_length", s.ff_exp);
    }
    if (s.swa) u32("attention.sliding_window", s.swa);
    if (s.swa_pattern) u32("attention.sliding_window_pattern", s.swa_pattern);
    if (s.kv_lora) {
        if (s.q_lora) u32("attention.q_lora_rank", s.q_lora);
        u32("attention.kv_lora_rank", s.kv_lora);
        u32("attention.key_length_mla", s.k_mla);
        u32("attention.value_length_mla", s.v_mla);
        u32("leading_dense_block_count", s.dense_lead);
        u32("expert_shared_count", s.shared);
        w.add_kv(a + "expert_weights_scale", GgufValue::f32(1.0f));
    }
    if (s.conv) {
        u32("ssm.conv_kernel", s.conv);
        u32("ssm.inner_size", s.inner);
        u32("ssm.state_size", s.state);
        u32("ssm.time_step_rank", s.dt_rank);
        u32("ssm.group_count", s.groups);
    }
    if (s.shortconv) u32("shortconv.l_cache", s.shortconv);
}

using TensorsFn = std::function<void(ArchTensors&, const ArchShape&)>;

TensorsFn tensors_of(const std::string& arch) {
    if (arch == "llama" || arch == "qwen2" || arch == "qwen3" || arch == "qwen3moe") return decoder_tensors;
    if (arch == "gemma2" || arch == "gemma3") return gemma_tensors;
    if (arch == "phi3") return phi3_tensors;
    if (arch == "deepseek2") return deepseek2_tensors;
    if (arch == "gpt-oss") return gpt_oss_tensors;
    if (arch == "mamba2") return mamba2_tensors;
    if (arch == "lfm2") return lfm2_tensors;
    throw std::logic_error("arch_files: no tensors for " + arch);
}

GgufWriter build_arch_file(const ArchShape& s) {
    GgufWriter w;
    w.add_kv("general.architecture", GgufValue::str(s.arch));
    w.add_kv("general.name", GgufValue::str(s.name));
    add_hparams(w, s);
    add_bpe_vocab(w, s.vocab);
    ArchTensors t(w, s);
    tensors_of(s.arch)(t, s);
    return w;
}

std::vector<uint32_t> lfm2_kv_heads(uint64_t layers, uint64_t kv_heads, std::initializer_list<uint64_t> attention_layers) {
    std::vector<uint32_t> out(layers, 0);
    for (uint64_t l : attention_layers) out[l] = static_cast<uint32_t>(kv_heads);
    return out;
}

// Small: hidden sizes of a few hundred, one type of weight each, so that llama.cpp allocates them in a second.
std::vector<ArchShape> small_shapes() {
    std::vector<ArchShape> v;
    v.push_back({.name = "llama-gqa-q4_k", .arch = "llama", .type = kQ4_K, .embd = 512, .layers = 4, .heads = 8,
                 .kv_heads = 2, .head_dim = 64, .ff = 1024, .vocab = 8192});
    v.push_back({.name = "mistral-swa-q4_0", .arch = "llama", .type = kTypeQ4_0, .embd = 512, .layers = 4, .heads = 8,
                 .kv_heads = 2, .head_dim = 64, .ff = 1024, .vocab = 4100, .swa = 1024});
    v.push_back({.name = "mixtral-moe-q4_0", .arch = "llama", .type = kTypeQ4_0, .embd = 512, .layers = 4, .heads = 8,
                 .kv_heads = 2, .head_dim = 64, .ff = 512, .vocab = 8192, .experts = 8, .experts_used = 2, .ff_exp = 512});
    v.push_back({.name = "qwen2-tied-q8_0", .arch = "qwen2", .type = kQ8_0, .embd = 512, .layers = 4, .heads = 8,
                 .kv_heads = 2, .head_dim = 64, .ff = 1024, .vocab = 8192, .tied = true});
    v.push_back({.name = "qwen3-iq4_nl", .arch = "qwen3", .type = kTypeIQ4_NL, .embd = 512, .layers = 4, .heads = 8,
                 .kv_heads = 4, .head_dim = 128, .ff = 1024, .vocab = 8192, .tied = true});
    v.push_back({.name = "qwen3moe-q4_k", .arch = "qwen3moe", .type = kQ4_K, .embd = 512, .layers = 4, .heads = 8,
                 .kv_heads = 2, .head_dim = 128, .ff = 1536, .vocab = 8192, .experts = 16, .experts_used = 4, .ff_exp = 256});
    v.push_back({.name = "gemma2-f16", .arch = "gemma2", .type = kF16, .embd = 512, .layers = 6, .heads = 8,
                 .kv_heads = 4, .head_dim = 128, .ff = 1024, .vocab = 8192, .tied = true, .swa = 512});
    v.push_back({.name = "gemma3-q4_0", .arch = "gemma3", .type = kTypeQ4_0, .embd = 512, .layers = 8, .heads = 4,
                 .kv_heads = 1, .head_dim = 256, .ff = 1024, .vocab = 8192, .tied = true, .swa = 512});
    v.push_back({.name = "phi3-q4_k", .arch = "phi3", .type = kQ4_K, .embd = 512, .layers = 4, .heads = 8,
                 .kv_heads = 8, .head_dim = 64, .ff = 1024, .vocab = 8192, .swa = 2047});
    v.push_back({.name = "deepseek2-mla-q4_k", .arch = "deepseek2", .type = kQ4_K, .embd = 512, .layers = 4, .heads = 8,
                 .kv_heads = 1, .head_dim = 0, .ff = 1024, .vocab = 8192, .experts = 8, .experts_used = 2,
                 .ff_exp = 256, .shared = 1, .dense_lead = 1, .q_lora = 256, .kv_lora = 256, .rope = 64, .k_mla = 192,
                 .v_mla = 128});
    v.push_back({.name = "gpt-oss-mxfp4", .arch = "gpt-oss", .type = kQ8_0, .embd = 512, .layers = 4, .heads = 8,
                 .kv_heads = 2, .head_dim = 64, .ff = 512, .vocab = 8192, .experts = 8, .experts_used = 2,
                 .ff_exp = 512, .swa = 128, .expert_type = kTypeMXFP4});
    v.push_back({.name = "mamba2-q8_0", .arch = "mamba2", .type = kQ8_0, .embd = 512, .layers = 4, .heads = 0,
                 .kv_heads = 0, .head_dim = 0, .ff = 0, .vocab = 8192, .conv = 4, .inner = 1024, .state = 64,
                 .groups = 1, .dt_rank = 16});
    v.push_back({.name = "lfm2-hybrid-q4_0", .arch = "lfm2", .type = kTypeQ4_0, .embd = 512, .layers = 6, .heads = 8,
                 .kv_heads = 2, .head_dim = 64, .ff = 1024, .vocab = 8192, .tied = true, .shortconv = 3,
                 .kv_heads_per_layer = lfm2_kv_heads(6, 2, {2, 5})});
    return v;
}

// Real: the shapes of published models (kQ4_K weights, sparse), for llama.cpp's no-allocation pass.
std::vector<ArchShape> real_shapes() {
    std::vector<ArchShape> v;
    v.push_back({.name = "mistral-7b-v0.1-q4_k", .arch = "llama", .type = kQ4_K, .embd = 4096, .layers = 32, .heads = 32,
                 .kv_heads = 8, .head_dim = 128, .ff = 14336, .vocab = 32000, .swa = 4096});
    v.push_back({.name = "mixtral-8x7b-q4_k", .arch = "llama", .type = kQ4_K, .embd = 4096, .layers = 32, .heads = 32,
                 .kv_heads = 8, .head_dim = 128, .ff = 14336, .vocab = 32000, .experts = 8, .experts_used = 2,
                 .ff_exp = 14336});
    v.push_back({.name = "qwen2.5-7b-q4_k", .arch = "qwen2", .type = kQ4_K, .embd = 3584, .layers = 28, .heads = 28,
                 .kv_heads = 4, .head_dim = 128, .ff = 18944, .vocab = 152064, .ctx_train = 131072});
    v.push_back({.name = "qwen3-8b-q4_k", .arch = "qwen3", .type = kQ4_K, .embd = 4096, .layers = 36, .heads = 32,
                 .kv_heads = 8, .head_dim = 128, .ff = 12288, .vocab = 151936, .ctx_train = 40960});
    v.push_back({.name = "qwen3moe-30b-a3b-q4_k", .arch = "qwen3moe", .type = kQ4_K, .embd = 2048, .layers = 48,
                 .heads = 32, .kv_heads = 4, .head_dim = 128, .ff = 6144, .vocab = 151936, .ctx_train = 40960,
                 .experts = 128, .experts_used = 8, .ff_exp = 768});
    v.push_back({.name = "gemma2-9b-q4_k", .arch = "gemma2", .type = kQ4_K, .embd = 3584, .layers = 42, .heads = 16,
                 .kv_heads = 8, .head_dim = 256, .ff = 14336, .vocab = 256000, .ctx_train = 8192, .tied = true,
                 .swa = 4096});
    v.push_back({.name = "gemma3-27b-q4_k", .arch = "gemma3", .type = kQ4_K, .embd = 5376, .layers = 62, .heads = 32,
                 .kv_heads = 16, .head_dim = 128, .ff = 21504, .vocab = 262208, .ctx_train = 131072, .tied = true,
                 .swa = 1024});
    v.push_back({.name = "phi3-mini-4k-q4_k", .arch = "phi3", .type = kQ4_K, .embd = 3072, .layers = 32, .heads = 32,
                 .kv_heads = 32, .head_dim = 96, .ff = 8192, .vocab = 32064, .ctx_train = 4096, .swa = 2047});
    v.push_back({.name = "deepseek-v2-lite-q4_k", .arch = "deepseek2", .type = kQ4_K, .embd = 2048, .layers = 27,
                 .heads = 16, .kv_heads = 1, .head_dim = 0, .ff = 10944, .vocab = 102400, .ctx_train = 163840,
                 .experts = 64, .experts_used = 6, .ff_exp = 1408, .shared = 2, .dense_lead = 1, .kv_lora = 512,
                 .rope = 64, .k_mla = 192, .v_mla = 128});
    v.push_back({.name = "gpt-oss-20b-mxfp4", .arch = "gpt-oss", .type = kQ8_0, .embd = 2880, .layers = 24, .heads = 64,
                 .kv_heads = 8, .head_dim = 64, .ff = 2880, .vocab = 201088, .ctx_train = 131072, .experts = 32,
                 .experts_used = 4, .ff_exp = 2880, .swa = 128, .expert_type = kTypeMXFP4});
    v.push_back({.name = "mamba2-2.7b-q8_0", .arch = "mamba2", .type = kQ8_0, .embd = 2560, .layers = 64, .heads = 0,
                 .kv_heads = 0, .head_dim = 0, .ff = 0, .vocab = 50288, .ctx_train = 1048576, .conv = 4,
                 .inner = 5120, .state = 128, .groups = 1, .dt_rank = 80});
    v.push_back({.name = "lfm2-1.2b-q4_k", .arch = "lfm2", .type = kQ4_K, .embd = 2048, .layers = 16, .heads = 32,
                 .kv_heads = 8, .head_dim = 64, .ff = 8192, .vocab = 65536, .ctx_train = 128000, .tied = true,
                 .shortconv = 3, .kv_heads_per_layer = lfm2_kv_heads(16, 8, {2, 5, 8, 10, 12, 14})});
    return v;
}

}  // namespace

std::vector<ArchFile> arch_files(ArchScale scale) {
    std::vector<ArchFile> out;
    for (const ArchShape& s : scale == ArchScale::small ? small_shapes() : real_shapes()) out.push_back({s.name, s.arch, build_arch_file(s)});
    return out;
}

std::vector<std::filesystem::path> write_arch_files(const std::filesystem::path& dir, ArchScale scale) {
    std::filesystem::create_directories(dir);
    std::vector<std::filesystem::path> out;
    for (const ArchFile& f : arch_files(scale)) {
        out.push_back(dir / (f.name + ".gguf"));
        f.gguf.write(out.back());
    }
    return out;
}

}  // namespace modelcat::kit
