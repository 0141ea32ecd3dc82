#include "model/census.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <string>

#include "model/ggml_types.hpp"

namespace modelcat::model {

std::vector<CensusEntry> census(const std::vector<const TensorInfo*>& tensors) {
    std::map<std::string, CensusEntry> by_type;
    for (const TensorInfo* t : tensors) {
        CensusEntry& e = by_type[t->type_name];
        e.type_id = t->type_id;
        e.type_name = t->type_name;
        ++e.tensors;
        e.params += t->n_elements;
        e.bytes += t->bytes;
    }
    std::vector<CensusEntry> out;
    for (auto& [name, e] : by_type) out.push_back(std::move(e));
    std::sort(out.begin(), out.end(), [](const CensusEntry& a, const CensusEntry& b) {
        if (a.params != b.params) return a.params > b.params;
        if (a.type_id != b.type_id) return a.type_id < b.type_id;
        return a.type_name < b.type_name;
    });
    return out;
}

std::vector<CensusEntry> census(const std::vector<TensorInfo>& tensors) {
    std::vector<const TensorInfo*> all;
    for (const auto& t : tensors) all.push_back(&t);
    return census(all);
}

std::string census_string(const std::vector<CensusEntry>& entries) {
    std::string s;
    for (const auto& e : entries) {
        if (!s.empty()) s += ' ';
        s += (e.type_id ? std::to_string(*e.type_id) : e.type_name) + ":" + std::to_string(e.tensors);
    }
    return s;
}

std::string census_with_names(std::string_view census) {
    std::string out;
    while (!census.empty()) {
        size_t end = census.find(' ');
        std::string_view pair = census.substr(0, end);
        census = end == std::string_view::npos ? std::string_view() : census.substr(end + 1);
        size_t colon = pair.find(':');
        uint32_t id = 0;
        auto [stop, ec] = std::from_chars(pair.data(), pair.data() + std::min(colon, pair.size()), id);
        bool is_id = colon != std::string_view::npos && colon > 0 && ec == std::errc() && stop == pair.data() + colon;
        if (!out.empty()) out += ' ';
        out += is_id ? ggml_type_name(id) + std::string(pair.substr(colon)) : std::string(pair);
    }
    return out;
}

}  // namespace modelcat::model
