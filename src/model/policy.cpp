#include "model/policy.hpp"

#include <algorithm>
#include <map>
#include <span>
#include <string_view>
#include <tuple>

#include "model/content_hash.hpp"

namespace modelcat::model {

std::pair<std::string, std::string> policy_hashes(const std::vector<FileRow>& files) {
    std::string entries;  // "name\x1ftype\0" per tensor, one allocation for all
    std::vector<std::pair<size_t, size_t>> exact;  // (offset, length without the NUL)
    std::map<std::string, uint64_t> shape;
    std::string key;
    for (const auto& f : files)
        for (const auto& t : f.tensors) {
            exact.emplace_back(entries.size(), t.name.size() + 1 + t.type_name.size());
            entries.append(t.name).append(1, '\x1f').append(t.type_name).append(1, '\0');
            key.assign(t.kind).append(1, '\x1f').append(t.type_name);
            ++shape[key];
        }
    auto text = [&](const std::pair<size_t, size_t>& e) { return std::string_view(entries).substr(e.first, e.second); };
    std::sort(exact.begin(), exact.end(), [&](const auto& x, const auto& y) { return text(x) < text(y); });
    ContentHash a, b;
    auto bytes = [](const char* p, size_t n) { return std::span(reinterpret_cast<const uint8_t*>(p), n); };
    for (const auto& e : exact) a.update(bytes(entries.data() + e.first, e.second + 1));  // + the NUL as separator
    for (const auto& [k, n] : shape) {
        b.update(bytes(k.data(), k.size() + 1));
        b.update_u64le(n);
    }
    return {hex64(a.digest()), hex64(b.digest())};
}

std::vector<PolicyRow> policy_rows(const std::vector<FileRow>& files) {
    // keyed by views of the rows' own strings: no key is copied per tensor
    std::map<std::pair<std::string_view, std::string_view>, std::pair<PolicyRow, std::vector<int64_t>>> by_kind_type;
    for (const auto& f : files)
        for (const auto& t : f.tensors) {
            auto& [row, layers] = by_kind_type[{t.kind, t.type_name}];
            row.tensor_kind = t.kind;
            row.type_id = t.type_id;
            row.type_name = t.type_name;
            ++row.tensors;
            if (t.layer) layers.push_back(*t.layer);
        }
    std::vector<PolicyRow> rows;
    for (auto& [key, entry] : by_kind_type) {
        auto& [row, layers] = entry;
        std::sort(layers.begin(), layers.end());
        for (int64_t l : layers) {
            if (row.layers) row.layers->append(1, ',');
            else row.layers.emplace();
            row.layers->append(std::to_string(l));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

const CensusRow* majority_type(const std::vector<CensusRow>& census) {
    const CensusRow* best = nullptr;
    for (const auto& c : census) {
        if (c.type_name == "F32") continue;
        if (!best || std::tie(c.tensors, c.params, best->type_id, best->type_name) >
                         std::tie(best->tensors, best->params, c.type_id, c.type_name))
            best = &c;
    }
    return best;
}

std::optional<MetadataValue> block_count(const std::vector<const FileHeader*>& headers,
                                         const std::optional<std::string>& architecture) {
    if (!architecture) return std::nullopt;
    for (const FileHeader* h : headers)
        for (const auto& e : h->metadata)
            if (e.key == *architecture + ".block_count") return e.value;
    return std::nullopt;
}

}  // namespace modelcat::model
