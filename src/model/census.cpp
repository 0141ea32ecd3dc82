#include "model/census.hpp"

#include <algorithm>
#include <map>

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

}  // namespace modelcat::model
