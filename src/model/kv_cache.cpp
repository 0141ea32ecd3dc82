#include "model/kv_cache.hpp"

#include <string>
#include <vector>

namespace modelcat::model {

namespace {

const MetadataEntry* find(const FileHeader& h, const std::string& key) {
    for (const auto& e : h.metadata)
        if (e.key == key) return &e;
    return nullptr;
}

std::optional<uint64_t> scalar(const MetadataValue& v) {
    if (auto* u = std::get_if<uint64_t>(&v)) return *u;
    if (auto* i = std::get_if<int64_t>(&v)) return *i >= 0 ? std::optional<uint64_t>(static_cast<uint64_t>(*i)) : std::nullopt;
    if (auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
    return std::nullopt;
}

// The elements of a small array of integers or bools, from the JSON the parser kept.
std::optional<std::vector<uint64_t>> small_array(const ArraySummary& a) {
    if (!a.json || a.json->size() < 2) return std::nullopt;
    std::vector<uint64_t> out;
    const std::string body = a.json->substr(1, a.json->size() - 2);
    for (size_t start = 0; start < body.size();) {
        size_t end = std::min(body.find(',', start), body.size());
        const std::string item = body.substr(start, end - start);
        if (item == "true" || item == "false") out.push_back(item == "true");
        else if (!item.empty() && item.find_first_not_of("0123456789") == std::string::npos) out.push_back(std::stoull(item));
        else return std::nullopt;
        start = end + 1;
    }
    return out.size() == a.length ? std::optional(out) : std::nullopt;
}

// A hyperparameter for each of n layers: a scalar repeated, or an array of exactly n.
std::optional<std::vector<uint64_t>> per_layer(const FileHeader& h, const std::string& key, uint64_t n) {
    const MetadataEntry* e = find(h, key);
    if (!e) return std::nullopt;
    if (auto* a = std::get_if<ArraySummary>(&e->value)) {
        auto v = small_array(*a);
        return v && v->size() == n ? v : std::nullopt;
    }
    if (auto s = scalar(e->value)) return std::vector<uint64_t>(n, *s);
    return std::nullopt;
}

// Which layers slide: an int period p (layer l slides unless l % p == p - 1), or one bool per layer.
std::vector<bool> sliding_layers(const FileHeader& h, const std::string& arch, uint64_t n) {
    std::vector<bool> out(n, false);
    const MetadataEntry* e = find(h, arch + ".attention.sliding_window_pattern");
    if (!e || !find(h, arch + ".attention.sliding_window")) return out;
    if (auto p = scalar(e->value); p && *p > 1)
        for (uint64_t l = 0; l < n; ++l) out[l] = l % *p != *p - 1;
    if (auto* a = std::get_if<ArraySummary>(&e->value))
        if (auto v = small_array(*a); v && v->size() == n)
            for (uint64_t l = 0; l < n; ++l) out[l] = (*v)[l] != 0;
    return out;
}

}  // namespace

std::optional<KvCacheEstimate> estimate_kv_cache(const FileHeader& h) {
    const std::optional<std::string> arch = metadata_string(h, "general.architecture");
    if (!arch) return std::nullopt;
    const std::string a = *arch + ".";
    const MetadataEntry* blocks = find(h, a + "block_count");
    const std::optional<uint64_t> n = blocks ? scalar(blocks->value) : std::nullopt;
    if (!n || *n == 0 || *n > 4096) return std::nullopt;
    const auto heads = per_layer(h, a + "attention.head_count", *n);
    const auto kv_heads = find(h, a + "attention.head_count_kv") ? per_layer(h, a + "attention.head_count_kv", *n) : heads;
    const auto embd = per_layer(h, a + "embedding_length", *n);
    if (!heads || !kv_heads) return std::nullopt;
    // A sliding layer's own length (key_length_swa) first, then the model's, then embedding / heads.
    auto length = [&](const std::string& key, uint64_t l, bool sliding) -> std::optional<uint64_t> {
        if (auto v = sliding ? per_layer(h, a + key + "_swa", *n) : std::nullopt) return (*v)[l];
        if (auto v = per_layer(h, a + key, *n)) return (*v)[l];
        if (embd && (*heads)[l]) return (*embd)[l] / (*heads)[l];
        return std::nullopt;
    };
    const std::vector<bool> swa = sliding_layers(h, *arch, *n);
    KvCacheEstimate est;
    if (const MetadataEntry* w = find(h, a + "attention.sliding_window")) est.sliding_window = scalar(w->value);
    for (uint64_t l = 0; l < *n; ++l) {
        auto k = length("attention.key_length", l, swa[l]), v = length("attention.value_length", l, swa[l]);
        if (!k || !v) return std::nullopt;
        const uint64_t bytes = (*kv_heads)[l] * (*k + *v) * 2 * 1024;
        (swa[l] ? est.swa_bytes_per_1k : est.full_bytes_per_1k) += bytes;
        est.swa_layers += swa[l];
    }
    return est;
}

}  // namespace modelcat::model
