// Over 500 lines: one transcription of one llama.cpp function family, kept whole
// so that it reads against src/llama-quant.cpp branch for branch.
#include "quantize/quant_policy.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <initializer_list>
#include <numeric>
#include <optional>
#include <regex>

#include "model/ggml_types.hpp"

namespace modelcat::quantize {

using namespace model;  // the floor this room replays llama-quantize over: headers, types, names

namespace {

using F = FileType;
using T = GgmlTypeId;

// LLM_ARCH_NAMES of llama.cpp at the revision (src/llama-arch.cpp), sorted.
constexpr std::array<std::string_view, 145> kArchitectures{
    "afmoe", "apertus", "arcee", "arctic", "arwkv7", "baichuan", "bailingmoe", "bailingmoe2", "bailingmoe3",
    "bert", "bitnet", "bloom", "chameleon", "chatglm", "clip", "codeshell", "cogvlm", "cohere2", "cohere2moe",
    "command-r", "dbrx", "deci", "deepseek", "deepseek2", "deepseek2-ocr", "deepseek32", "deepseek4", "dflash",
    "dots1", "dream", "eagle3", "ernie4_5", "ernie4_5-moe", "eurobert", "exaone", "exaone-moe", "exaone4",
    "falcon", "falcon-h1", "gemma", "gemma-embedding", "gemma2", "gemma3", "gemma3n", "gemma4",
    "gemma4-assistant", "glm-dsa", "glm4", "glm4moe", "gpt-oss", "gpt2", "gptj", "gptneox", "granite",
    "granitehybrid", "granitemoe", "graniteswitch", "grok", "grovemoe", "hunyuan-dense", "hunyuan-moe",
    "hunyuan_vl", "hy_v3", "internlm2", "jais", "jais2", "jamba", "jina-bert-v2", "jina-bert-v3", "kimi-k3",
    "kimi-linear", "laguna", "lfm2", "lfm2moe", "llada", "llada-moe", "llama", "llama-embed", "llama4",
    "maincoder", "mamba", "mamba2", "mellum", "mimo2", "minicpm", "minicpm3", "minimax-01", "minimax-m2",
    "minimax-m3", "mistral3", "mistral4", "modern-bert", "mpt", "muse-glimmer", "nanbeige", "nemotron",
    "nemotron_h", "nemotron_h_moe", "neo-bert", "nomic-bert", "nomic-bert-moe", "olmo", "olmo2", "olmoe",
    "openelm", "orion", "paddleocr", "pangu-embedded", "phi2", "phi3", "phimoe", "plamo", "plamo2", "plamo3",
    "plm", "pockettts", "qwen", "qwen2", "qwen2moe", "qwen2vl", "qwen3", "qwen35", "qwen35moe", "qwen3moe",
    "qwen3next", "qwen3tts", "qwen3vl", "qwen3vlmoe", "refact", "rnd1", "rwkv6", "rwkv6qwen2", "rwkv7",
    "seed_oss", "smallthinker", "smollm3", "stablelm", "starcoder", "starcoder2", "step35", "t5", "t5encoder",
    "talkie", "wavtokenizer-dec", "xverse",
};
static_assert(std::is_sorted(kArchitectures.begin(), kArchitectures.end()));

bool in(F f, std::initializer_list<F> set) { return std::find(set.begin(), set.end(), f) != set.end(); }

uint32_t block_size(T t) { return find_ggml_type(static_cast<uint32_t>(t))->block_size; }

// tensor_category and tensor_get_category: broad roles by name.
enum class Category { token_embd, attn_q, attn_v, attn_k, attn_qkv, attn_kv_b, attn_output, ffn_up, ffn_gate, ffn_down, output, other };

Category category(const std::string& name) {
    if (name == "output.weight") return Category::output;
    if (name == "token_embd.weight" || name == "per_layer_token_embd.weight") return Category::token_embd;
    static constexpr std::array<std::pair<std::string_view, Category>, 9> kParts{{
        {"attn_qkv.weight", Category::attn_qkv}, {"attn_kv_b.weight", Category::attn_kv_b},
        {"attn_v.weight", Category::attn_v},     {"attn_k.weight", Category::attn_k},
        {"attn_q.weight", Category::attn_q},     {"attn_output.weight", Category::attn_output},
        {"ffn_up", Category::ffn_up},            {"ffn_gate", Category::ffn_gate},
        {"ffn_down", Category::ffn_down},
    }};
    for (const auto& [part, c] : kParts)
        if (name.find(part) != std::string::npos) return c;
    return Category::other;
}

// category_is_attn_v: these share attn_v's rules and its counter.
bool is_attn_v(Category c) { return c == Category::attn_v || c == Category::attn_qkv || c == Category::attn_kv_b; }

uint32_t n_dims(const TensorDesc& t) {  // ggml_n_dims: trailing 1s do not count
    uint32_t n = 1;
    for (uint32_t i = 0; i < t.ne.size(); ++i)
        if (t.ne[i] > 1) n = i + 1;
    return n;
}

// tensor_allows_quantization: what llama-quantize never touches.
bool allows_quantization(const TensorDesc& t, const QuantizeOptions& o) {
    if (n_dims(t) < 2) return false;
    const std::string& name = t.name;
    bool quantize = name.rfind("weight") == name.size() - 6;  // as llama.cpp writes it, wrap-around included
    static constexpr std::array<std::string_view, 38> kNever{
        "_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel", "per_layer_model_proj",
        "ssm_conv1d", "shortconv.conv.weight", "indexer.k_proj.weight", "indexer.q_proj.weight",
        "time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight", "time_mix_w2.weight",
        "time_mix_v0.weight", "time_mix_v1.weight", "time_mix_v2.weight", "time_mix_a0.weight",
        "time_mix_a1.weight", "time_mix_a2.weight", "time_mix_g1.weight", "time_mix_g2.weight",
        "time_mix_decay_w1.weight", "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight", "attn_rel_b.weight",
        ".position_embd", "sam.pos_embd", "sam.neck.", "sam.net_", ".rel_pos", ".patch_embd", ".patch_merger",
        "a.rvq.codebook", "mm.a.code_embd", "position_embd.weight", "token_types.weight", "output.weight"};
    for (std::string_view part : kNever) {
        if (part == "position_embd.weight" || part == "token_types.weight") {
            quantize &= name != part;  // LLM_TN(arch)(LLM_TENSOR_POS_EMBD / TOKEN_TYPES): whole names
        } else if (part == "output.weight") {
            quantize &= !o.leave_output_tensor || name != part;
        } else {
            quantize &= name.find(part) == std::string::npos;
        }
    }
    return quantize;
}

// sscanf(name, "blk.%d.", &layer): the number after "blk.", or nullopt.
std::optional<int> scanned_layer(std::string_view name) {
    if (!name.starts_with("blk.")) return std::nullopt;
    std::string_view rest = name.substr(4);
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
    if (rest.starts_with('+')) rest.remove_prefix(1);
    int layer = 0;
    auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), layer);
    if (ec != std::errc()) return std::nullopt;
    return layer;
}

// What the model's hparams and type contribute.
struct Facts {
    bool falcon, bailingmoe3, is_70b;  // LLM_ARCH_FALCON, LLM_ARCH_BAILINGMOE3, model.type == LLM_TYPE_70B
    uint32_t n_gqa, n_expert;
    int n_layer;
};

// LLM_TYPE_70B as the loaders of src/models/ assign it (the only size class the quantizer asks about).
bool is_70b(const ModelDesc& m) {
    const std::string& a = m.architecture;
    if (a == "llama") return m.n_expert != 8 && m.n_layer == 80 && m.n_head != m.n_head_kv;
    if (a == "qwen2" || a == "deci" || a == "olmo") return m.n_layer == 80;
    if (a == "jais2") return m.n_layer == 68;
    return false;
}

Facts facts(const ModelDesc& m) {
    return {m.architecture == "falcon", m.architecture == "bailingmoe3", is_70b(m),
            m.n_head_kv == 0 ? 0 : m.n_head / m.n_head_kv, m.n_expert, static_cast<int>(m.n_layer)};
}

// llama-quantize throws; the replay carries the message instead.
struct Refusal {
    std::string message;
};

// quantize_state_impl's counters and the inputs of llama_tensor_get_type_impl.
struct State {
    const Facts& m;
    const QuantizeOptions& o;
    F ft;
    bool tied = true;  // has_tied_embeddings: no output.weight
    int n_attention_wv = 0, i_attention_wv = 0, i_ffn_down = 0, i_ffn_gate = 0, i_ffn_up = 0;
};

bool use_more_bits(int i_layer, int n_layers) {
    return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}

// layer_info: MoE models take the layer from the name, dense ones from the counter.
std::pair<int, int> layer_info(const State& s, int counter, const std::string& name) {
    if (std::max(1u, s.m.n_expert) == 1) return {counter, s.m.n_layer};
    std::optional<int> layer = scanned_layer(name);
    if (!layer) throw Refusal{"Failed to determine layer for tensor " + name};
    if (*layer < 0 || *layer >= s.m.n_layer)
        throw Refusal{"Bad layer " + std::to_string(*layer) + " for tensor " + name + ". Must be in [0, " +
                      std::to_string(s.m.n_layer) + ")"};
    return {*layer, s.m.n_layer};
}

// The output tensor, and a tied token embedding, which doubles as it.
T output_type(const State& s, T t, const TensorDesc& d) {
    if (s.o.output_tensor_type) return *s.o.output_tensor_type;
    if (s.ft == F::MOSTLY_MXFP4_MOE) return T::Q8_0;
    if (s.m.falcon || d.ne[0] % block_size(t) != 0) return T::Q8_0;
    if (in(s.ft, {F::MOSTLY_IQ2_XXS, F::MOSTLY_IQ2_XS, F::MOSTLY_IQ3_XXS, F::MOSTLY_IQ1_S, F::MOSTLY_IQ2_S,
                  F::MOSTLY_IQ2_M, F::MOSTLY_IQ1_M}))
        return T::Q5_K;
    return t != T::Q8_0 ? T::Q6_K : t;
}

// MXFP4_MOE: expert tensors (3-D) MXFP4, everything else Q8_0.
T mxfp4_moe_type(const State& s, Category c, const TensorDesc& d) {
    const bool expert_role = c == Category::ffn_up || c == Category::ffn_gate || c == Category::ffn_down;
    const bool expert = d.ne.size() > 2 && d.ne[2] > 1;
    return expert && (!s.m.bailingmoe3 || expert_role) ? T::MXFP4 : T::Q8_0;
}

T token_embd_type(const State& s, T t) {
    if (s.o.token_embedding_type) return *s.o.token_embedding_type;
    if (in(s.ft, {F::MOSTLY_IQ2_XXS, F::MOSTLY_IQ2_XS, F::MOSTLY_IQ1_S, F::MOSTLY_IQ1_M})) return T::Q2_K;
    if (in(s.ft, {F::MOSTLY_IQ2_S, F::MOSTLY_IQ2_M, F::MOSTLY_IQ3_XXS})) return T::IQ3_S;
    if (in(s.ft, {F::MOSTLY_TQ1_0, F::MOSTLY_TQ2_0, F::MOSTLY_Q2_0})) return T::Q4_K;
    return t;
}

bool iq2_family(F ft) {
    return in(ft, {F::MOSTLY_IQ2_XXS, F::MOSTLY_IQ2_XS, F::MOSTLY_IQ1_S, F::MOSTLY_IQ2_S, F::MOSTLY_IQ2_M,
                   F::MOSTLY_IQ1_M});
}

// The IQ1/IQ2 file types' own branch (ffn_down counts by counter here, MoE or not).
T iq2_family_type(State& s, T t, Category c) {
    const bool iq2_s_m = in(s.ft, {F::MOSTLY_IQ2_S, F::MOSTLY_IQ2_M});
    if (is_attn_v(c)) {
        if (s.m.n_gqa >= 4 || s.m.n_expert >= 4) t = T::Q4_K;
        else t = iq2_s_m ? T::IQ3_S : T::Q2_K;
        ++s.i_attention_wv;
    } else if (s.m.n_expert == 8 && c == Category::attn_k) {
        t = T::Q4_K;
    } else if (c == Category::ffn_down) {
        if (s.i_ffn_down < s.m.n_layer / 8) t = iq2_s_m ? T::IQ3_S : T::Q2_K;
        ++s.i_ffn_down;
    } else if (c == Category::attn_output) {
        if (s.m.n_expert == 8) t = T::Q5_K;
        else if (in(s.ft, {F::MOSTLY_IQ1_S, F::MOSTLY_IQ1_M})) t = T::IQ2_XXS;
        else if (iq2_s_m) t = T::IQ3_S;
    }
    return t;
}

T attn_v_type(State& s, T t) {
    const uint32_t gqa = s.m.n_gqa;
    const F ft = s.ft;
    if (ft == F::MOSTLY_Q2_K) t = gqa >= 4 ? T::Q4_K : T::Q3_K;
    else if (ft == F::MOSTLY_Q2_K_S && gqa >= 4) t = T::Q4_K;
    else if (ft == F::MOSTLY_IQ3_XXS) t = gqa >= 4 ? T::Q4_K : !s.o.imatrix ? T::IQ3_S : T::IQ3_XXS;
    else if (in(ft, {F::MOSTLY_IQ3_XS, F::MOSTLY_IQ3_S}) && gqa >= 4) t = T::Q4_K;
    else if (ft == F::MOSTLY_IQ3_M) t = T::Q4_K;
    else if (ft == F::MOSTLY_Q3_K_M) t = s.i_attention_wv < 2 ? T::Q5_K : T::Q4_K;
    else if (ft == F::MOSTLY_Q3_K_L) t = T::Q5_K;
    else if (in(ft, {F::MOSTLY_IQ4_NL, F::MOSTLY_IQ4_XS}) && gqa >= 4) t = T::Q5_K;
    else if (in(ft, {F::MOSTLY_Q4_K_M, F::MOSTLY_Q5_K_M}) && use_more_bits(s.i_attention_wv, s.n_attention_wv))
        t = T::Q6_K;
    else if (ft == F::MOSTLY_Q4_K_S && s.i_attention_wv < 4) t = T::Q5_K;
    if (s.m.is_70b && (t == T::Q3_K || t == T::Q4_K)) t = T::Q5_K;  // 8 heads share attn_v: more bits, little size
    if (s.m.n_expert == 8) t = T::Q8_0;
    ++s.i_attention_wv;
    return t;
}

T attn_k_or_q_type(const State& s, T t, Category c) {
    if (c == Category::attn_k && s.m.n_expert == 8) return T::Q8_0;
    if (s.ft == F::MOSTLY_IQ3_XS) return T::IQ3_XXS;
    if (s.ft == F::MOSTLY_IQ3_XXS) return T::IQ2_S;
    return t;
}

T ffn_down_type(State& s, T t, const std::string& name) {
    const auto [i, n] = layer_info(s, s.i_ffn_down, name);
    const F ft = s.ft;
    const bool falcon = s.m.falcon, imatrix = s.o.imatrix;
    if (ft == F::MOSTLY_Q2_K) t = T::Q3_K;
    else if (ft == F::MOSTLY_Q2_K_S) t = i < n / 8 ? T::Q4_K : t;
    else if (ft == F::MOSTLY_IQ3_XXS && !imatrix) t = i < n / 8 ? T::Q4_K : T::Q3_K;
    else if (ft == F::MOSTLY_Q3_K_M)
        t = i < n / 16 ? T::Q5_K : !falcon || use_more_bits(i, n) ? T::Q4_K : T::Q3_K;
    else if (ft == F::MOSTLY_IQ3_M && (i < n / 8 || (s.m.n_expert == 8 && use_more_bits(i, n)))) t = T::Q4_K;
    else if (ft == F::MOSTLY_Q3_K_L) t = falcon ? T::Q4_K : T::Q5_K;
    else if (ft == F::MOSTLY_Q4_K_M) {
        if (falcon) t = i < n / 16 ? T::Q6_K : use_more_bits(i, n) ? T::Q5_K : T::Q4_K;
        else if (use_more_bits(i, n)) t = T::Q6_K;
    } else if (i < n / 8 && in(ft, {F::MOSTLY_IQ4_NL, F::MOSTLY_IQ4_XS}) && !imatrix) t = T::Q5_K;
    else if (ft == F::MOSTLY_Q5_K_M && use_more_bits(i, n)) t = T::Q6_K;
    else if (ft == F::MOSTLY_Q4_K_S && !falcon && i < n / 8) t = T::Q5_K;
    else if (in(ft, {F::MOSTLY_Q4_0, F::MOSTLY_Q5_0}) && imatrix && i < n / 8)
        t = ft == F::MOSTLY_Q4_0 ? T::Q4_1 : T::Q5_1;
    ++s.i_ffn_down;
    return t;
}

T attn_output_type(const State& s, T t) {
    const F ft = s.ft;
    if (s.m.falcon) return ft == F::MOSTLY_Q3_K_L ? T::Q4_K : t;
    if (s.m.n_expert == 8) {
        return in(ft, {F::MOSTLY_Q2_K, F::MOSTLY_IQ3_XS, F::MOSTLY_IQ3_XXS, F::MOSTLY_Q3_K_S, F::MOSTLY_Q3_K_M,
                       F::MOSTLY_IQ4_NL, F::MOSTLY_Q4_K_S, F::MOSTLY_Q4_K_M, F::MOSTLY_IQ3_S, F::MOSTLY_IQ3_M,
                       F::MOSTLY_IQ4_XS})
                   ? T::Q5_K
                   : t;
    }
    if (ft == F::MOSTLY_Q2_K) return T::Q3_K;
    if (ft == F::MOSTLY_IQ3_XXS) return T::IQ3_S;
    if (ft == F::MOSTLY_Q3_K_M || ft == F::MOSTLY_IQ3_M) return T::Q4_K;
    if (ft == F::MOSTLY_Q3_K_L) return T::Q5_K;
    return t;
}

T ffn_gate_or_up_type(State& s, T t, Category c, const std::string& name) {
    int& counter = c == Category::ffn_gate ? s.i_ffn_gate : s.i_ffn_up;
    const auto [i, n] = layer_info(s, counter, name);
    if (s.ft == F::MOSTLY_IQ3_XS && i >= n / 8 && i < 7 * n / 8) t = T::IQ3_XXS;
    ++counter;
    return t;
}

// llama_tensor_get_type_impl. Its separate ATTENTION_QKV branch is not here:
// is_attn_v() takes attn_qkv first, so at this revision that branch never runs.
T standard_type(State& s, T t, const TensorDesc& d, Category c) {
    if (c == Category::output || (s.tied && c == Category::token_embd)) return output_type(s, t, d);
    if (s.ft == F::MOSTLY_MXFP4_MOE) return mxfp4_moe_type(s, c, d);
    if (c == Category::token_embd) return token_embd_type(s, t);
    if (iq2_family(s.ft)) return iq2_family_type(s, t, c);
    if (is_attn_v(c)) return attn_v_type(s, t);
    if (c == Category::attn_k || c == Category::attn_q) return attn_k_or_q_type(s, t, c);
    if (c == Category::ffn_down) return ffn_down_type(s, t, d.name);
    if (c == Category::attn_output) return attn_output_type(s, t);
    if (c == Category::ffn_gate || c == Category::ffn_up) return ffn_gate_or_up_type(s, t, c, d.name);
    return t;
}

// tensor_type_fallback: rows that do not divide into the type's blocks.
T fallback(T t, const TensorDesc& d) {
    const uint64_t ncols = d.ne[0];
    if (ncols % block_size(t) == 0) return t;
    T r;
    switch (t) {
        case T::IQ1_S: case T::IQ1_M: case T::IQ2_XXS: case T::IQ2_XS: case T::IQ2_S: case T::IQ3_XXS:
        case T::IQ3_S: case T::IQ4_XS: r = T::IQ4_NL; break;
        case T::Q2_0: case T::Q2_K: case T::Q3_K: case T::TQ1_0: case T::TQ2_0: r = T::Q4_0; break;
        case T::Q4_K: r = T::Q5_0; break;
        case T::Q5_K: r = T::Q5_1; break;
        case T::Q6_K: r = T::Q8_0; break;
        default:
            std::string lower(type_name(t));
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
            throw Refusal{"no tensor type fallback is defined for type " + lower + " (" + d.name + ")"};
    }
    return ncols % block_size(r) == 0 ? r : T::F16;  // "must use F16 due to unusual shape"
}

// llama_tensor_get_type: the user's overrides, then the standard logic, then the fallback.
// `quantizable`: tensor_allows_quantization; `matches[i]`: whether --tensor-type i matches it.
std::optional<T> tensor_type(State& s, const std::vector<const std::vector<char>*>& matches, T default_type,
                             const TensorDesc& d, size_t index, bool quantizable, Category c) {
    if (!quantizable) return std::nullopt;
    if (s.o.token_embedding_type && c == Category::token_embd) return s.o.token_embedding_type;
    if (s.o.output_tensor_type && c == Category::output) return s.o.output_tensor_type;
    T t = default_type;
    if (!is_quantized(default_type)) return t;
    bool manual = false;
    for (size_t i = 0; i < matches.size() && !manual; ++i) {
        if ((*matches[i])[index]) {
            t = s.o.tensor_types[i].type;
            manual = true;
        }
    }
    if (!manual && !s.o.pure) t = standard_type(s, t, d, c);
    return fallback(t, d);
}

// tensor_requires_imatrix: without one, llama-quantize refuses these.
bool requires_imatrix(const std::string& name, T t, F ft) {
    if (name == "token_embd.weight" || name == "per_layer_token_embd.weight" || name == "output.weight") return false;
    switch (t) {
        case T::IQ3_XXS: case T::IQ2_XXS: case T::IQ2_XS: case T::IQ2_S: case T::IQ1_M: case T::IQ1_S: return true;
        case T::Q2_K: return ft == F::MOSTLY_Q2_K_S;
        default: return false;
    }
}

// The order of llama_model_loader's weights_map (weight_name_comparer) or the file's.
std::vector<size_t> visit_order(const ModelDesc& m, TensorOrder order) {
    std::vector<size_t> idx(m.tensors.size());
    std::iota(idx.begin(), idx.end(), size_t{0});
    if (order == TensorOrder::file) return idx;
    std::vector<int> layer(m.tensors.size());
    for (size_t i = 0; i < idx.size(); ++i) layer[i] = scanned_layer(m.tensors[i].name).value_or(-1);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return layer[a] != layer[b] ? layer[a] < layer[b] : m.tensors[a].name < m.tensors[b].name;
    });
    return idx;
}

std::string ggml_spelling(GgmlTypeId t) {  // ggml_type_name: "q4_K", "iq2_xxs", "bf16"
    std::string s(type_name(t));
    for (size_t i = 0; i < s.size(); ++i)
        if (!(s[i] == 'K' && i + 1 == s.size() && i > 0 && s[i - 1] == '_'))
            s[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    return s;
}

std::string shell_word(const std::string& w) {
    const bool plain = std::all_of(w.begin(), w.end(), [](unsigned char ch) {
        return std::isalnum(ch) || ch == '_' || ch == '.' || ch == '=' || ch == '-' || ch == '/' || ch == ':';
    });
    return plain ? w : "'" + w + "'";  // our patterns hold no single quote
}

// A head count: an integer, or a per-layer array of which layer 0's counts (when the summary kept its values).
std::variant<uint32_t, std::string> head_count(const FileHeader& h, const std::string& key, uint32_t absent) {
    for (const MetadataEntry& e : h.metadata) {
        if (e.key != key) continue;
        if (const auto* u = std::get_if<uint64_t>(&e.value)) return static_cast<uint32_t>(*u);
        if (const auto* i = std::get_if<int64_t>(&e.value)) return static_cast<uint32_t>(*i);
        const auto* a = std::get_if<ArraySummary>(&e.value);
        if (!a || !a->json || a->length == 0) return key + " is neither a count nor a per-layer list of counts";
        const std::string& j = *a->json;
        const size_t start = j.find_first_of("0123456789");
        uint32_t v = 0;
        if (start == std::string::npos || std::from_chars(j.data() + start, j.data() + j.size(), v).ec != std::errc())
            return key + " holds no count";
        return v;
    }
    return absent;
}

// The strings a --tensor-type pattern is a search for, when it is made of them: letters, digits, _ and
// -, escaped dots and at most one group of alternatives (blk\.(3|7)\.attn_v, what recipes write). A regex
// search for such a pattern matches a name exactly when one of them is in it; std::regex took a
// sixth of a local crawl's instructions to say so. Anything else: nullopt, and std::regex decides.
std::optional<std::vector<std::string>> literal_alternatives(const std::string& pattern) {
    std::string before, after;
    std::vector<std::string> group;
    bool in_group = false, had_group = false;
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        std::string& into = in_group ? group.back() : had_group ? after : before;
        if (c == '\\' && i + 1 < pattern.size() && pattern[i + 1] == '.') {
            into += '.';
            ++i;
        } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') {
            into += c;
        } else if (c == '(' && !in_group && !had_group) {
            in_group = true;
            group.emplace_back();
        } else if (c == '|' && in_group) {
            group.emplace_back();
        } else if (c == ')' && in_group) {
            in_group = false;
            had_group = true;
        } else {
            return std::nullopt;
        }
    }
    if (in_group) return std::nullopt;
    if (!had_group) return std::vector<std::string>{before};
    for (std::string& g : group) g = before + g + after;
    return group;
}

}  // namespace

std::string_view type_name(GgmlTypeId t) {
    const GgmlType* g = find_ggml_type(static_cast<uint32_t>(t));
    return g ? g->name : std::string_view("?");
}

bool is_quantized(GgmlTypeId t) { return block_size(t) > 1; }

std::optional<GgmlTypeId> parse_type(std::string_view name) {
    for (const GgmlType& g : ggml_types()) {
        if (g.name.size() == name.size() &&
            std::equal(g.name.begin(), g.name.end(), name.begin(), [](char a, char b) {
                return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
            }))
            return static_cast<GgmlTypeId>(g.id);
    }
    return std::nullopt;
}

bool known_architecture(std::string_view architecture) {
    return std::binary_search(kArchitectures.begin(), kArchitectures.end(), architecture);
}

size_t QuantizeOptions::count() const {
    return (token_embedding_type ? 1 : 0) + (output_tensor_type ? 1 : 0) + (leave_output_tensor ? 1 : 0) +
           (pure ? 1 : 0) + tensor_types.size();
}

std::string QuantizeOptions::command_line() const {
    std::vector<std::string> words;
    if (pure) words.push_back("--pure");
    if (leave_output_tensor) words.push_back("--leave-output-tensor");
    if (token_embedding_type) words.push_back("--token-embedding-type " + ggml_spelling(*token_embedding_type));
    if (output_tensor_type) words.push_back("--output-tensor-type " + ggml_spelling(*output_tensor_type));
    for (const TensorTypeOption& t : tensor_types)
        words.push_back("--tensor-type " + shell_word(t.pattern + "=" + ggml_spelling(t.type)));
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

bool in_by_layer_order(const ModelDesc& model) {
    const std::vector<size_t> order = visit_order(model, TensorOrder::by_layer);
    return std::is_sorted(order.begin(), order.end());
}

ReplayModel::ReplayModel(ModelDesc model) : model_(std::move(model)) {
    QuantizeOptions plain;
    for (const TensorDesc& t : model_.tensors) {
        categories_.push_back(static_cast<uint8_t>(category(t.name)));
        quantizable_.push_back(allows_quantization(t, plain));
    }
    by_layer_ = visit_order(model_, TensorOrder::by_layer);
}

const std::vector<char>& ReplayModel::matches(const std::string& pattern) const {
    auto it = matches_.find(pattern);
    if (it != matches_.end()) return it->second;
    std::vector<char> m;
    if (const auto literals = literal_alternatives(pattern)) {
        for (const TensorDesc& t : model_.tensors)
            m.push_back(std::any_of(literals->begin(), literals->end(),
                                    [&](const std::string& l) { return t.name.find(l) != std::string::npos; }));
    } else {
        const std::regex re(pattern);
        for (const TensorDesc& t : model_.tensors) m.push_back(std::regex_search(t.name, re));
    }
    return matches_.emplace(pattern, std::move(m)).first->second;
}

Replay replay(const ModelDesc& model, FileType file_type, const QuantizeOptions& options, TensorOrder order) {
    return replay(ReplayModel(model), file_type, options, order);
}

Replay replay(const ReplayModel& prepared, FileType file_type, const QuantizeOptions& options, TensorOrder order) {
    const ModelDesc& model = prepared.model_;
    const Facts f = facts(model);
    State s{f, options, file_type};
    for (uint8_t c : prepared.categories_) {
        if (is_attn_v(static_cast<Category>(c))) ++s.n_attention_wv;
        if (static_cast<Category>(c) == Category::output) s.tied = false;
    }
    std::vector<const std::vector<char>*> matches;
    Replay r;
    try {
        for (const TensorTypeOption& t : options.tensor_types) matches.push_back(&prepared.matches(t.pattern));
        const T default_type = file_type_info(file_type).default_type;
        r.types.resize(model.tensors.size());
        auto visit = [&](size_t i) {
            const TensorDesc& d = model.tensors[i];
            const bool quantizable = prepared.quantizable_[i] && !(options.leave_output_tensor && d.name == "output.weight");
            r.types[i] = tensor_type(s, matches, default_type, d, i, quantizable, static_cast<Category>(prepared.categories_[i]));
            if (r.types[i] && !options.imatrix && requires_imatrix(d.name, *r.types[i], file_type))
                throw Refusal{"this quantization requires an importance matrix (" + d.name + ": " +
                              std::string(type_name(*r.types[i])) + ")"};
        };
        if (order == TensorOrder::file)
            for (size_t i = 0; i < model.tensors.size(); ++i) visit(i);
        else
            for (size_t i : prepared.by_layer_) visit(i);
    } catch (const Refusal& e) {
        return {{}, e.message};
    } catch (const std::regex_error& e) {
        return {{}, std::string("invalid --tensor-type pattern: ") + e.what()};
    }
    return r;
}

std::variant<ModelDesc, std::string> model_desc(const FileHeader& h) {
    ModelDesc m;
    std::optional<std::string> arch = metadata_string(h, "general.architecture");
    if (!arch) return std::string("no general.architecture");
    m.architecture = *arch;
    std::optional<int64_t> layers = metadata_integer(h, m.architecture + ".block_count");
    if (!layers || *layers <= 0 || *layers > 512) return "no usable " + m.architecture + ".block_count";
    m.n_layer = static_cast<uint32_t>(*layers);
    m.n_expert = static_cast<uint32_t>(std::max<int64_t>(0, metadata_integer(h, m.architecture + ".expert_count").value_or(0)));
    auto heads = head_count(h, m.architecture + ".attention.head_count", 0);
    if (auto* e = std::get_if<std::string>(&heads)) return *e;
    m.n_head = std::get<uint32_t>(heads);
    auto kv_heads = head_count(h, m.architecture + ".attention.head_count_kv", m.n_head);  // defaults to n_head
    if (auto* e = std::get_if<std::string>(&kv_heads)) return *e;
    m.n_head_kv = std::get<uint32_t>(kv_heads);
    for (const TensorInfo& t : h.tensors) m.tensors.push_back({t.name, t.dims});
    return m;
}

}  // namespace modelcat::quantize
