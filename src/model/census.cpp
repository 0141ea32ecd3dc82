#include "model/census.hpp"

#include <algorithm>
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

std::string census_with_type_names(std::string_view census) {
    std::string out;
    size_t i = 0;
    while (i < census.size()) {
        size_t end = std::min(census.find(' ', i), census.size());
        std::string_view pair = census.substr(i, end - i);
        size_t colon = pair.find(':');
        std::string_view type = pair.substr(0, colon);
        const bool id = !type.empty() && type.size() <= 9 && type.find_first_not_of("0123456789") == std::string_view::npos;
        if (!out.empty()) out += ' ';
        out += id ? ggml_type_name(static_cast<uint32_t>(std::stoul(std::string(type)))) : std::string(type);
        if (colon != std::string_view::npos) out += pair.substr(colon);
        i = end + 1;
    }
    return out;
}

}  // namespace modelcat::model
