#include "report/policy_compare.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace modelcat::report {

namespace {

std::map<std::string, const catalog::ReportTensor*> by_name(const catalog::ReportModel& m) {
    std::map<std::string, const catalog::ReportTensor*> out;
    for (const auto& t : m.tensors) out.emplace(t.name, &t);
    return out;
}

std::string short_kind(const std::string& kind) {
    return kind.ends_with(".weight") && kind.size() > 7 ? kind.substr(0, kind.size() - 7) : kind;
}

// "0-3,6,10": consecutive layers as ranges.
std::string layer_ranges(std::vector<int64_t> layers) {
    std::sort(layers.begin(), layers.end());
    std::string out;
    for (size_t i = 0; i < layers.size();) {
        size_t j = i;
        // a crafted catalogue's layer can be the largest int64: no + 1 past it
        while (j + 1 < layers.size() && layers[j] < std::numeric_limits<int64_t>::max() && layers[j + 1] == layers[j] + 1) ++j;
        if (!out.empty()) out += ",";
        out += std::to_string(layers[i]);
        if (j > i) {
            out += j == i + 1 ? ',' : '-';
            out += std::to_string(layers[j]);
        }
        i = j + 1;
    }
    return out;
}

// "token_embd, output" or "ffn_down in layers 0-3, output", in the model's tensor order.
std::string describe(const std::vector<const catalog::ReportTensor*>& tensors) {
    std::vector<std::string> kinds;
    std::map<std::string, std::vector<int64_t>> layers;
    for (const auto* t : tensors) {
        if (!layers.contains(t->kind)) kinds.push_back(t->kind);
        auto& l = layers[t->kind];
        if (t->layer) l.push_back(*t->layer);
    }
    std::string out;
    for (const auto& k : kinds) {
        if (!out.empty()) out += ", ";
        out += short_kind(k);
        if (!layers[k].empty()) out += (layers[k].size() == 1 ? " in layer " : " in layers ") + layer_ranges(layers[k]);
    }
    return out;
}

}  // namespace

std::set<std::string> differing_tensors(const std::vector<const catalog::ReportModel*>& models) {
    std::map<std::string, std::vector<std::string>> types;  // name -> type per model that has it
    for (const auto* m : models)
        for (const auto& t : m->tensors) types[t.name].push_back(t.type);
    std::set<std::string> out;
    for (const auto& [name, ts] : types) {
        bool same = ts.size() == models.size() && std::all_of(ts.begin(), ts.end(), [&](const auto& t) { return t == ts[0]; });
        if (!same) out.insert(name);
    }
    return out;
}

std::vector<std::string> short_names(const std::vector<const catalog::ReportModel*>& models) {
    std::vector<std::string> out;
    if (models.empty()) return out;
    size_t common = models[0]->name.size();
    for (const auto* m : models) {
        size_t i = 0;
        while (i < common && i < m->name.size() && m->name[i] == models[0]->name[i]) ++i;
        common = i;
    }
    size_t cut = models[0]->name.find_last_of("-.", common == 0 ? 0 : common - 1);
    size_t from = (cut == std::string::npos || common == 0) ? 0 : cut + 1;
    for (const auto* m : models) out.push_back(from < m->name.size() ? m->name.substr(from) : m->name);
    return out;
}

std::string policy_summary(const catalog::ReportModel& base, const std::string& base_name, const catalog::ReportModel& other,
                           const std::string& other_name) {
    auto base_tensors = by_name(base), other_tensors = by_name(other);
    std::vector<std::string> type_order;
    std::map<std::string, std::vector<const catalog::ReportTensor*>> changed;  // by the type in `other`
    std::vector<const catalog::ReportTensor*> missing;
    for (const auto& t : other.tensors) {
        auto it = base_tensors.find(t.name);
        if (it != base_tensors.end() && it->second->type == t.type) continue;
        if (!changed.contains(t.type)) type_order.push_back(t.type);
        changed[t.type].push_back(&t);
    }
    for (const auto& t : base.tensors)
        if (!other_tensors.contains(t.name)) missing.push_back(&t);
    std::string out = other_name + " = " + base_name;
    for (size_t i = 0; i < type_order.size(); ++i)
        out += (i ? "; " : " + ") + describe(changed[type_order[i]]) + " as " + type_order[i];
    if (!missing.empty()) out += " − " + describe(missing);
    return out;
}

std::string recipe_summary(const catalog::ReportModel& model, const std::string& name) {
    if (model.recipe.empty() || model.recipe == "unknown") return {};
    std::string out = name + ": " + model.recipe;
    if (model.recipe_why != model.recipe) out += " \u2014 " + model.recipe_why;
    return out;
}

}  // namespace modelcat::report
