#include "memory/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>

#include "format/metadata_values.hpp"

namespace modelcat::memory {

namespace {

using model::FileHeader;

// The architectures modelled, by how llama.cpp lays out their memory (src/models/ARCH.cpp).
enum class Family : uint8_t { transformer, gemma2, gemma3, deepseek2, gpt_oss, mamba2, lfm2 };

const std::map<std::string, Family, std::less<>>& families() {
    static const std::map<std::string, Family, std::less<>> m{
        {"llama", Family::transformer},  // Llama, Mistral, Mixtral: llama.cpp gives them no sliding window
        {"qwen2", Family::transformer},    {"qwen3", Family::transformer}, {"qwen3moe", Family::transformer},
        {"phi3", Family::transformer},     // its sliding window is switched off in llama.cpp
        {"gemma2", Family::gemma2},        {"gemma3", Family::gemma3},     {"deepseek2", Family::deepseek2},
        {"gpt-oss", Family::gpt_oss},      {"mamba2", Family::mamba2},     {"lfm2", Family::lfm2},
    };
    return m;
}

// Hyperparameters as llama.cpp's loader reads them: `<arch>.KEY`, a scalar or one value per layer.
class Hparams {
public:
    Hparams(const FileHeader& h, std::string arch) : h_(h), prefix_(std::move(arch) + ".") {}

    std::optional<uint64_t> get(std::string_view key) const {
        const model::MetadataEntry* e = format::find_metadata(h_, prefix_ + std::string(key));
        return e ? format::unsigned_value(e->value) : std::nullopt;
    }
    uint64_t get_or(std::string_view key, uint64_t fallback) const { return get(key).value_or(fallback); }
    bool is_array(std::string_view key) const {
        const model::MetadataEntry* e = format::find_metadata(h_, prefix_ + std::string(key));
        return e && std::holds_alternative<model::ArraySummary>(e->value);
    }
    // One value per layer: a scalar repeated, or an array of n (get_key_or_arr); `fallback` when absent.
    std::variant<std::vector<uint64_t>, NotModelled> per_layer(std::string_view key, uint64_t n, std::vector<uint64_t> fallback) const {
        const model::MetadataEntry* e = format::find_metadata(h_, prefix_ + std::string(key));
        if (!e) return fallback;
        if (auto* a = std::get_if<model::ArraySummary>(&e->value)) {
            auto v = format::kept_integers(*a);
            if (!v) return NotModelled{prefix_ + std::string(key) + ": an array of " + std::to_string(a->length) + " whose values the catalogue does not keep"};
            if (v->size() != n) return NotModelled{prefix_ + std::string(key) + ": " + std::to_string(v->size()) + " values for " + std::to_string(n) + " layers"};
            return *v;
        }
        if (auto s = format::unsigned_value(e->value)) return std::vector<uint64_t>(n, *s);
        return NotModelled{prefix_ + std::string(key) + ": not an integer"};
    }

private:
    const FileHeader& h_;
    std::string prefix_;
};

// The weights and where llama.cpp puts them (llama-model-loader.cpp: create_tensor, select_weight_buft).
std::variant<std::vector<Weight>, NotModelled> read_weights(const FileHeader& h, MemoryModel& m) {
    std::vector<Weight> out;
    m.layer_weight_bytes.assign(m.n_layer, 0);
    for (const model::TensorInfo& t : h.tensors) {
        if (!t.type_id || !t.expected_bytes) return NotModelled{"tensor " + t.name + ": a type llama.cpp does not size"};
        const bool embedding = t.name == "token_embd.weight";  // GET_ROWS, never repacked
        const bool experts = t.name.find("_exps.weight") != std::string::npos;
        const bool matrix = t.name.ends_with(".weight") && !embedding &&
                            (t.dims.size() == 2 || (t.dims.size() == 3 && experts));
        out.push_back({t.offset, *t.expected_bytes, *t.type_id, t.dims.size() > 1 ? t.dims[1] : 1, matrix, embedding});
        unsigned layer = 0;
        if (std::sscanf(t.name.c_str(), "blk.%u.", &layer) == 1 && layer < m.n_layer) m.layer_weight_bytes[layer] += *t.expected_bytes;
        else m.other_weight_bytes += *t.expected_bytes;
    }
    m.tied_output = std::none_of(h.tensors.begin(), h.tensors.end(), [](const auto& t) { return t.name == "output.weight"; });
    return out;
}

struct LayerPlan {
    std::vector<bool> sliding, recurrent;
    uint32_t window = 0;
};

// Which layers slide over a window and which keep a recurrent state, per family (load_arch_hparams).
std::variant<LayerPlan, NotModelled> plan_layers(const Hparams& hp, Family f, uint64_t n, const std::vector<uint64_t>& kv_heads) {
    LayerPlan p{std::vector<bool>(n, false), std::vector<bool>(n, f == Family::mamba2), 0};
    auto pattern = [&](uint64_t period_default) {  // set_swa_pattern(period): layer il slides unless il % period == period - 1
        const uint64_t period = hp.is_array("attention.sliding_window_pattern") ? period_default
                                                                                : hp.get_or("attention.sliding_window_pattern", period_default);
        for (uint64_t il = 0; il < n; ++il) p.sliding[il] = period == 0 || il % period < period - 1;
    };
    switch (f) {
        case Family::gemma2:
            p.window = static_cast<uint32_t>(hp.get_or("attention.sliding_window", 4096));
            pattern(2);
            break;
        case Family::gemma3:
            if (hp.get_or("attention.sliding_window", 0) > 0) {
                p.window = static_cast<uint32_t>(*hp.get("attention.sliding_window"));
                pattern(6);
            }
            break;
        case Family::gpt_oss:
            if (!hp.get("attention.sliding_window")) return NotModelled{"gpt-oss without attention.sliding_window"};
            p.window = static_cast<uint32_t>(*hp.get("attention.sliding_window"));
            pattern(2);
            break;
        case Family::lfm2:
            for (uint64_t il = 0; il < n; ++il) p.recurrent[il] = kv_heads[il] == 0;
            if (hp.get_or("attention.sliding_window", 0) > 0) {
                p.window = static_cast<uint32_t>(*hp.get("attention.sliding_window"));
                for (uint64_t il = 0; il < n; ++il) p.sliding[il] = !p.recurrent[il];
            }
            break;
        default: break;
    }
    return p;
}

// The attention caches: llama_kv_cache over the non-sliding layers, a second one (iSWA) over the sliding ones.
std::optional<NotModelled> read_attention(const Hparams& hp, Family f, MemoryModel& m, const LayerPlan& p,
                                          const std::vector<uint64_t>& heads, const std::vector<uint64_t>& kv_heads) {
    if (heads[0] == 0) return std::nullopt;  // no attention at all (Mamba-2)
    const uint64_t head_k = hp.get_or("attention.key_length", m.n_embd / heads[0]);
    const uint64_t head_v = hp.get_or("attention.value_length", m.n_embd / heads[0]);
    const uint64_t head_k_swa = hp.get_or("attention.key_length_swa", head_k);
    const uint64_t head_v_swa = hp.get_or("attention.value_length_swa", head_v);
    const bool mla = f == Family::deepseek2 && hp.get("attention.key_length_mla") && hp.get("attention.value_length_mla");
    AttentionCache full{mla ? AttentionCache::Kind::mla : AttentionCache::Kind::full, 0, {}, {}};
    AttentionCache sliding{AttentionCache::Kind::sliding, p.window, {}, {}};
    for (uint64_t il = 0; il < m.n_layer; ++il) {
        if (p.recurrent[il]) continue;
        AttentionCache& c = p.sliding[il] ? sliding : full;
        c.k_rows.push_back(static_cast<uint32_t>((p.sliding[il] ? head_k_swa : head_k) * kv_heads[il]));
        if (!mla) c.v_rows.push_back(static_cast<uint32_t>((p.sliding[il] ? head_v_swa : head_v) * kv_heads[il]));
    }
    if (!full.k_rows.empty() || p.window == 0) m.caches.push_back(full);
    if (p.window != 0) m.caches.push_back(sliding);
    m.n_head = *std::max_element(heads.begin(), heads.end());
    m.head_k = std::max(head_k, head_k_swa);  // MLA attends in the latent: key_length is kv_lora_rank + rope there
    m.head_v = std::max(head_v, head_v_swa);
    return std::nullopt;
}

// Recurrent state per layer (llama-hparams.cpp n_embd_r, n_embd_s): Mamba-2's conv and SSM states, LFM2's short conv.
std::optional<NotModelled> read_recurrent(const Hparams& hp, Family f, MemoryModel& m, const LayerPlan& p) {
    m.recurrent_layers = static_cast<uint32_t>(std::count(p.recurrent.begin(), p.recurrent.end(), true));
    if (f == Family::lfm2) {
        const auto l_cache = hp.get("shortconv.l_cache");
        if (!l_cache || *l_cache == 0) return NotModelled{"lfm2 without shortconv.l_cache"};
        m.r_elements = m.n_embd * (*l_cache - 1);
    } else if (f == Family::mamba2) {
        const auto conv = hp.get("ssm.conv_kernel"), inner = hp.get("ssm.inner_size"), state = hp.get("ssm.state_size");
        if (!conv || !inner || !state) return NotModelled{"mamba2 without its ssm.* sizes"};
        const uint64_t groups = hp.get_or("ssm.group_count", 0);
        m.r_elements = (*conv > 0 ? *conv - 1 : 0) * (*inner + 2 * groups * *state);
        m.s_elements = *state * *inner;
        m.ssm_in = 2 * *inner + 2 * groups * *state + hp.get_or("ssm.time_step_rank", 0);
    }
    return std::nullopt;
}

}  // namespace

const char* cache_type_name(CacheType t) {
    switch (t) {
        case CacheType::f16: return "f16";
        case CacheType::q8_0: return "q8_0";
        case CacheType::q4_0: return "q4_0";
    }
    return "f16";
}

std::variant<MemoryModel, NotModelled> read_memory_model(const FileHeader& h) {
    const std::optional<std::string> arch = model::metadata_string(h, "general.architecture");
    if (!arch) return NotModelled{"no general.architecture"};
    const auto family = families().find(*arch);
    if (family == families().end()) return NotModelled{"not modelled for " + *arch};
    const Family f = family->second;
    MemoryModel m;
    m.arch = *arch;
    const Hparams hp(h, *arch);
    const auto n_layer = hp.get("block_count"), n_embd = hp.get("embedding_length");
    if (!n_layer || *n_layer == 0 || *n_layer > 512 || !n_embd) return NotModelled{*arch + " without block_count or embedding_length"};
    m.n_layer = *n_layer;
    m.n_embd = *n_embd;
    m.ctx_train = hp.get_or("context_length", 0);
    if (m.ctx_train > std::numeric_limits<uint32_t>::max())  // its column is a signed 64-bit integer: 2^64-1 read as -1
        return NotModelled{*arch + ".context_length " + std::to_string(m.ctx_train) + " is more than llama.cpp's uint32 n_ctx_train"};
    const model::MetadataEntry* tokens = format::find_metadata(h, "tokenizer.ggml.tokens");
    const auto* token_list = tokens ? std::get_if<model::ArraySummary>(&tokens->value) : nullptr;
    if (!token_list) return NotModelled{"no tokenizer.ggml.tokens: the logits' width is unknown"};
    m.n_vocab = token_list->length;  // llama_vocab::n_tokens, which sizes the logits
    auto heads = hp.per_layer("attention.head_count", m.n_layer, {});
    if (auto* e = std::get_if<NotModelled>(&heads)) return *e;
    auto& head_counts = std::get<std::vector<uint64_t>>(heads);
    if (head_counts.empty()) head_counts.assign(m.n_layer, 0);
    auto kv_heads = hp.per_layer("attention.head_count_kv", m.n_layer, head_counts);
    if (auto* e = std::get_if<NotModelled>(&kv_heads)) return *e;
    auto plan = plan_layers(hp, f, m.n_layer, std::get<std::vector<uint64_t>>(kv_heads));
    if (auto* e = std::get_if<NotModelled>(&plan)) return *e;
    const LayerPlan& p = std::get<LayerPlan>(plan);
    if (auto e = read_attention(hp, f, m, p, head_counts, std::get<std::vector<uint64_t>>(kv_heads))) return *e;
    if (auto e = read_recurrent(hp, f, m, p)) return *e;
    auto ff = hp.per_layer("feed_forward_length", m.n_layer, std::vector<uint64_t>(m.n_layer, 0));
    if (auto* e = std::get_if<NotModelled>(&ff)) return *e;
    m.n_ff = *std::ranges::max_element(std::get<std::vector<uint64_t>>(ff));
    m.n_expert_used = hp.get_or("expert_used_count", 0);
    m.n_ff_exp = hp.get_or("expert_feed_forward_length", m.n_ff);
    auto weights = read_weights(h, m);
    if (auto* e = std::get_if<NotModelled>(&weights)) return *e;
    m.weights = std::move(std::get<std::vector<Weight>>(weights));
    return m;
}

}  // namespace modelcat::memory
