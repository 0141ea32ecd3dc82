#include "format/metadata_values.hpp"

#include <algorithm>
#include <string>

namespace modelcat::format {

const model::MetadataEntry* find_metadata(const model::FileHeader& h, std::string_view key) {
    for (const auto& e : h.metadata)
        if (e.key == key) return &e;
    return nullptr;
}

std::optional<uint64_t> unsigned_value(const model::MetadataValue& v) {
    if (auto* u = std::get_if<uint64_t>(&v)) return *u;
    if (auto* i = std::get_if<int64_t>(&v)) return *i >= 0 ? std::optional<uint64_t>(static_cast<uint64_t>(*i)) : std::nullopt;
    if (auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
    return std::nullopt;
}

std::optional<std::vector<uint64_t>> kept_integers(const model::ArraySummary& a) {
    if (!a.json || a.json->size() < 2) return std::nullopt;
    std::vector<uint64_t> out;
    const std::string body = a.json->substr(1, a.json->size() - 2);
    for (size_t start = 0; start < body.size();) {
        const size_t end = std::min(body.find(',', start), body.size());
        const std::string item = body.substr(start, end - start);
        if (item == "true" || item == "false") out.push_back(item == "true");
        else if (!item.empty() && item.size() <= 19 && item.find_first_not_of("0123456789") == std::string::npos) out.push_back(std::stoull(item));
        else return std::nullopt;
        start = end + 1;
    }
    return out.size() == a.length ? std::optional(out) : std::nullopt;
}

}  // namespace modelcat::format
