#include "quantize/recipe.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "model/ggml_types.hpp"
#include "model/tensor_names.hpp"

namespace modelcat::quantize {

using namespace model;  // the floor this room replays llama-quantize over: headers, types, names

namespace {

// Types a tensor llama-quantize leaves alone may hold: what converters write.
bool source_type(uint32_t id) {
    return id == static_cast<uint32_t>(GgmlTypeId::F32) || id == static_cast<uint32_t>(GgmlTypeId::F16) ||
           id == static_cast<uint32_t>(GgmlTypeId::BF16);
}

bool agrees(const std::optional<GgmlTypeId>& expected, uint32_t actual) {
    return expected ? static_cast<uint32_t>(*expected) == actual : source_type(actual);
}

// A tensor's kind for people: "blk.3.ffn_down.weight" -> "ffn_down", "output.weight" -> "output".
std::string kind_of(const std::string& name) {
    std::string k = split_tensor_name(name).kind;
    if (k.ends_with(".weight")) k.resize(k.size() - 7);
    return k;
}

std::string type_text(uint32_t id) { return ggml_type_name(id); }

std::string file_type_text(FileType f) { return std::string(file_type_info(f).tool_name); }

// One file's tensors as the replay sees them and as the file stores them.
struct Subject {
    ReplayModel prepared;          // replayed hundreds of times: prepared once
    std::vector<uint32_t> actual;  // ggml type id per tensor
    TensorOrder order;
    std::vector<std::string> kinds;  // kind_of() per tensor
    const ModelDesc& model() const { return prepared.model(); }
};

// Indices of the tensors the replay gets wrong; every tensor when llama-quantize would refuse.
std::vector<size_t> disagreements(const Subject& s, FileType ft, const QuantizeOptions& o) {
    const Replay r = replay(s.prepared, ft, o, s.order);
    std::vector<size_t> out;
    for (size_t i = 0; i < s.actual.size(); ++i)
        if (!r.refusal.empty() || !agrees(r.types[i], s.actual[i])) out.push_back(i);
    return out;
}

std::optional<size_t> find_tensor(const Subject& s, std::string_view name) {
    for (size_t i = 0; i < s.model().tensors.size(); ++i)
        if (s.model().tensors[i].name == name) return i;
    return std::nullopt;
}

// The dedicated options a file's token_embd and output suggest, every combination,
// cheapest first; among equals --leave-output-tensor, then --token-embedding-type,
// --output-tensor-type, --pure (what each names is the plainest account).
std::vector<QuantizeOptions> option_sets(const Subject& s, bool imatrix) {
    const std::optional<size_t> te = find_tensor(s, "token_embd.weight"), out = find_tensor(s, "output.weight");
    const std::optional<size_t> out_like = out ? out : te;  // tied: --output-tensor-type reaches token_embd
    std::vector<std::pair<int, QuantizeOptions>> ranked;
    for (int bits = 0; bits < 16; ++bits) {
        const bool leave = bits & 1, embd = bits & 2, output = bits & 4, pure = bits & 8;
        if ((leave && (!out || !source_type(s.actual[*out]) || output)) || (embd && !te) || (output && !out_like))
            continue;
        QuantizeOptions o;
        o.leave_output_tensor = leave;
        if (embd) o.token_embedding_type = static_cast<GgmlTypeId>(s.actual[*te]);
        if (output) o.output_tensor_type = static_cast<GgmlTypeId>(s.actual[*out_like]);
        o.pure = pure;
        o.imatrix = imatrix;
        ranked.push_back({bits, o});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.second.count() != b.second.count() ? a.second.count() < b.second.count() : a.first < b.first;
    });
    std::vector<QuantizeOptions> out_sets;
    for (auto& [bits, o] : ranked) out_sets.push_back(std::move(o));
    return out_sets;
}

// A kind as a --tensor-type regex: its name, ended by "\\." where the name alone would also
// match another kind's matrices ("ffn_down" in "ffn_down_exps"; attn_q_norm is 1-D, unquantized).
std::string kind_pattern(const Subject& s, const std::string& kind) {
    for (size_t i = 0; i < s.model().tensors.size(); ++i) {
        const TensorDesc& t = s.model().tensors[i];
        const bool matrix = std::count_if(t.ne.begin(), t.ne.end(), [](uint64_t d) { return d > 1; }) >= 2;
        if (matrix && s.kinds[i] != kind && t.name.find(kind) != std::string::npos) return kind + "\\.";
    }
    return kind;
}

std::string layers_pattern(const std::vector<uint32_t>& layers, const std::string& kind) {
    std::string alt;
    for (uint32_t l : layers) alt += (alt.empty() ? "" : "|") + std::to_string(l);
    return layers.size() == 1 ? "blk\\." + alt + "\\." + kind : "blk\\.(" + alt + ")\\." + kind;
}

// --tensor-type candidates that could make one kind agree, fewest options first:
// the whole kind as one type, the layers holding one type (a partial override
// shifts the counters of the layers after it), then the layers of the other types
// before the whole kind as its commonest, then one option per type.
std::vector<std::vector<TensorTypeOption>> kind_candidates(const Subject& s, const std::string& name,
                                                           const std::vector<size_t>& members,
                                                           const std::vector<size_t>& wrong) {
    const std::string kind = kind_pattern(s, name);
    std::vector<uint32_t> types;  // in the wrong tensors, first seen first
    for (size_t i : wrong)
        if (std::find(types.begin(), types.end(), s.actual[i]) == types.end()) types.push_back(s.actual[i]);
    auto layers_with = [&](uint32_t t, const std::vector<size_t>& among) {
        std::vector<uint32_t> layers;
        for (size_t i : among)
            if (s.actual[i] == t)
                if (auto l = split_tensor_name(s.model().tensors[i].name).layer) layers.push_back(*l);
        return layers;
    };
    std::vector<std::vector<TensorTypeOption>> out;
    auto add = [&](std::vector<TensorTypeOption> c) {
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
    };
    auto subset = [&](uint32_t t, const std::vector<size_t>& among) {
        const std::vector<uint32_t> layers = layers_with(t, among);
        return layers.empty() || layers.size() == members.size()
                   ? TensorTypeOption{kind, static_cast<GgmlTypeId>(t)}
                   : TensorTypeOption{layers_pattern(layers, kind), static_cast<GgmlTypeId>(t)};
    };
    for (uint32_t t : types) {
        add({{kind, static_cast<GgmlTypeId>(t)}});
        add({subset(t, members)});
        add({subset(t, wrong)});
    }
    std::map<uint32_t, size_t> count;
    for (size_t i : members) ++count[s.actual[i]];
    const uint32_t majority = std::max_element(count.begin(), count.end(), [](auto& a, auto& b) {
                                  return a.second < b.second;
                              })->first;
    std::vector<TensorTypeOption> majority_last, each;
    for (const auto& [t, n] : count)
        if (t != majority) majority_last.push_back(subset(t, members));
    majority_last.push_back({kind, static_cast<GgmlTypeId>(majority)});
    add(majority_last);
    for (uint32_t t : types) each.push_back(subset(t, wrong));
    add(each);
    return out;
}

// Appends to `o` the first candidate that makes `kind` agree without upsetting
// any other tensor; `wrong` becomes what still disagrees.
bool fix_kind(const Subject& s, FileType ft, const std::string& kind, QuantizeOptions& o, std::vector<size_t>& wrong) {
    std::vector<size_t> members, wrong_here, wrong_elsewhere;
    for (size_t i = 0; i < s.model().tensors.size(); ++i)
        if (s.kinds[i] == kind) members.push_back(i);
    for (size_t i : wrong) (s.kinds[i] == kind ? wrong_here : wrong_elsewhere).push_back(i);
    for (const auto& c : kind_candidates(s, kind, members, wrong_here)) {
        QuantizeOptions trial = o;
        trial.tensor_types.insert(trial.tensor_types.end(), c.begin(), c.end());
        if (trial.count() > kMaxRecipeOptions) continue;
        std::vector<size_t> now = disagreements(s, ft, trial);
        if (std::includes(wrong_elsewhere.begin(), wrong_elsewhere.end(), now.begin(), now.end())) {
            o = std::move(trial);
            wrong = std::move(now);
            return true;
        }
    }
    return false;
}

std::vector<std::string> kinds_of(const Subject& s, const std::vector<size_t>& idx) {
    std::vector<std::string> kinds;
    for (size_t i : idx) {
        std::string k = s.kinds[i];
        if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(std::move(k));
    }
    return kinds;
}

// An explanation's cost: options typed, then how many of them are --tensor-type
// (the dedicated options say the same more plainly).
std::pair<size_t, size_t> cost(const QuantizeOptions& o) { return {o.count(), o.tensor_types.size()}; }

// The cheapest options (at most `budget`) on top of `ft`'s stock policy that reproduce the file exactly.
std::optional<QuantizeOptions> explain(const Subject& s, FileType ft, bool imatrix, size_t budget) {
    std::optional<QuantizeOptions> best;
    for (QuantizeOptions o : option_sets(s, imatrix)) {
        if (o.count() > budget || (best && cost(o) >= cost(*best))) continue;
        std::vector<size_t> wrong = disagreements(s, ft, o);
        const std::vector<std::string> kinds = kinds_of(s, wrong);  // each needs a --tensor-type of its own
        const std::pair<size_t, size_t> floor{o.count() + kinds.size(), kinds.size()};
        if (floor.first > budget || (best && floor >= cost(*best))) continue;
        bool fixed = true;
        for (const std::string& k : kinds)
            if (!(fixed = fix_kind(s, ft, k, o, wrong))) break;
        if (fixed && wrong.empty() && o.count() <= budget && (!best || cost(o) < cost(*best))) best = std::move(o);
    }
    return best;
}

QuantizeOptions stock_options(bool imatrix) {
    QuantizeOptions o;
    o.imatrix = imatrix;
    return o;
}

// How many tensors `ft`'s stock policy predicts, and whether it was replayed with an
// importance matrix: the file's evidence, or one when `ft` cannot be made without.
struct StockAgreement {
    size_t tensors;
    bool imatrix;
};

StockAgreement stock_agreement(const Subject& s, FileType ft, bool evidence) {
    Replay r = replay(s.prepared, ft, stock_options(evidence), s.order);
    const bool assumed = !evidence && r.refusal.find("importance matrix") != std::string::npos;
    if (assumed) r = replay(s.prepared, ft, stock_options(true), s.order);
    size_t n = 0;
    for (size_t i = 0; r.refusal.empty() && i < s.actual.size(); ++i) n += agrees(r.types[i], s.actual[i]);
    return {n, evidence || assumed};
}

// "ffn_down: Q3_K on 32 of 32 layers (stock Q2_K: 0)", "output: Q8_0 (stock Q4_K_M: Q6_K)".
std::vector<std::string> differences(const Subject& s, FileType ft, bool imatrix) {
    const Replay r = replay(s.prepared, ft, stock_options(imatrix), s.order);
    if (!r.refusal.empty()) return {"stock " + file_type_text(ft) + " refuses this model: " + r.refusal};
    std::vector<std::string> out;
    const std::vector<size_t> wrong = disagreements(s, ft, stock_options(imatrix));
    for (const std::string& kind : kinds_of(s, wrong)) {
        std::vector<size_t> members;
        for (size_t i = 0; i < s.actual.size(); ++i)
            if (s.kinds[i] == kind) members.push_back(i);
        std::vector<uint32_t> shown;
        for (size_t i : wrong) {
            if (s.kinds[i] != kind || std::count(shown.begin(), shown.end(), s.actual[i])) continue;
            const uint32_t t = s.actual[i];
            shown.push_back(t);
            const bool layered = split_tensor_name(s.model().tensors[i].name).layer.has_value();
            const auto stock_text = [&](size_t j) { return r.types[j] ? std::string(type_name(*r.types[j])) : "kept"; };
            if (!layered) {
                out.push_back(kind + ": " + type_text(t) + " (stock " + file_type_text(ft) + ": " + stock_text(i) + ")");
                continue;
            }
            size_t here = 0, stock = 0;
            for (size_t j : members) {
                here += s.actual[j] == t;
                stock += r.types[j] && static_cast<uint32_t>(*r.types[j]) == t;
            }
            out.push_back(kind + ": " + type_text(t) + " on " + std::to_string(here) + " of " +
                          std::to_string(members.size()) + " layers (stock " + file_type_text(ft) + ": " +
                          std::to_string(stock) + ")");
        }
    }
    return out;
}

Recipe unknown(Recipe r, std::string why) {
    r.kind = RecipeKind::unknown;
    r.note = std::move(why);
    r.why = recipe_word(r.kind);
    return r;
}

// Other file types whose stock policy the file might follow, best agreement first.
std::vector<std::pair<FileType, bool>> relabel_candidates(const Subject& s, FileType declared, bool evidence) {
    std::vector<std::pair<StockAgreement, FileType>> scored;
    for (const FileTypeInfo& f : quantize_file_types())
        if (f.id != declared) scored.push_back({stock_agreement(s, f.id, evidence), f.id});
    std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.first.tensors > b.first.tensors; });
    std::vector<std::pair<FileType, bool>> out;  // (type, imatrix)
    for (size_t i = 0; i < scored.size() && i < 3 && scored[i].first.tensors > 0; ++i)
        out.push_back({scored[i].second, scored[i].first.imatrix});
    return out;
}

// Explains a readable GGUF of a modelled type: stock, stock+overrides, relabelled or custom.
Recipe explain_file(Recipe r, const Subject& s, FileType declared) {
    const StockAgreement stock = stock_agreement(s, declared, r.imatrix);
    if (stock.imatrix && !r.imatrix) r.note = "an importance matrix assumed: " + file_type_text(declared) + " needs one";
    r.quantized_as = declared;
    r.matching = stock.tensors;
    r.options.imatrix = stock.imatrix;
    if (r.matching == r.tensors) {
        r.kind = RecipeKind::stock;
        return r;
    }
    const std::optional<QuantizeOptions> own = explain(s, declared, stock.imatrix, kMaxRecipeOptions);
    const size_t own_cost = own ? own->count() : kMaxRecipeOptions + 1;
    if (own_cost >= 2) {  // a relabelling costs one option, so it wins only from here
        for (const auto& [other, other_imatrix] : relabel_candidates(s, declared, r.imatrix)) {
            if (auto o = explain(s, other, other_imatrix, own_cost - 2)) {
                r.kind = RecipeKind::relabelled;
                r.quantized_as = other;
                r.options = *o;
                return r;
            }
        }
    }
    if (own) {
        r.kind = RecipeKind::stock_overrides;
        r.options = *own;
        return r;
    }
    r.kind = RecipeKind::custom;
    r.differences = differences(s, declared, stock.imatrix);
    return r;
}

// How a file's types differ from `from` (aligned with its tensors; nullopt: nothing to compare),
// kinds grouped by change: "token_embd: Q4_K→Q8_0; ffn_down: Q6_K→Q4_K on 16 of 32 layers".
// Kinds without layers that change alike share a phrase ("token_embd, output: Q4_K→Q8_0").
std::string changes_text(const FileHeader& h, const std::vector<std::optional<uint32_t>>& from,
                         const std::string& none) {
    std::vector<std::pair<std::tuple<std::string, uint32_t, uint32_t>, size_t>> changes;  // (kind, from, to), tensors
    std::map<std::string, size_t> kind_size;
    std::map<std::string, bool> kind_layered;
    for (size_t i = 0; i < h.tensors.size(); ++i) {
        const TensorInfo& t = h.tensors[i];
        const std::string kind = kind_of(t.name);
        ++kind_size[kind];
        kind_layered[kind] = split_tensor_name(t.name).layer.has_value();
        if (!from[i] || !t.type_id || *from[i] == *t.type_id) continue;
        const auto key = std::make_tuple(kind, *from[i], *t.type_id);
        auto it = std::find_if(changes.begin(), changes.end(), [&](auto& c) { return c.first == key; });
        if (it == changes.end()) changes.push_back({key, 1});
        else ++it->second;
    }
    std::vector<std::pair<std::string, std::string>> phrases;  // (kinds, change)
    for (const auto& [key, n] : changes) {
        const auto& [kind, before, after] = key;
        const std::string change = type_text(before) + "\u2192" + type_text(after);
        if (kind_layered[kind]) {
            phrases.push_back({kind, change + " on " + std::to_string(n) + " of " + std::to_string(kind_size[kind]) + " layers"});
            continue;
        }
        auto same = std::find_if(phrases.begin(), phrases.end(), [&](auto& p) { return p.second == change; });
        if (same != phrases.end()) same->first += ", " + kind;
        else phrases.push_back({kind, change});
    }
    std::string out;
    for (const auto& [kinds, change] : phrases) out += (out.empty() ? "" : "; ") + kinds + ": " + change;
    return out.empty() ? none : out;
}

// The options a recipe names, or its word when it names none.
std::string how_made(const Recipe& r) {
    return r.kind == RecipeKind::stock_overrides || r.kind == RecipeKind::relabelled ? r.overrides()
                                                                                     : std::string(recipe_word(r.kind));
}

// Options typed to make the file (a relabelling is one); custom costs more than any.
size_t explanation_cost(const Recipe& r) {
    switch (r.kind) {
        case RecipeKind::stock: return 0;
        case RecipeKind::stock_overrides: return r.options.count();
        case RecipeKind::relabelled: return 1 + r.options.count();
        default: return kMaxRecipeOptions + 1;
    }
}

// Recipe::why, replayed on the model prepared for the recipe's own replays.
std::string why_text(const FileHeader& file, const Recipe& recipe, const ReplayModel& prepared) {
    if (!recipe.quantized_as) return std::string(recipe_word(recipe.kind));
    const Replay r = replay(prepared, *recipe.quantized_as, stock_options(recipe.options.imatrix), recipe.order);
    std::vector<std::optional<uint32_t>> from;
    for (size_t i = 0; i < file.tensors.size(); ++i)
        from.push_back(r.types.empty() || !r.types[i] ? std::nullopt
                                                      : std::optional<uint32_t>(static_cast<uint32_t>(*r.types[i])));
    const std::string changes = changes_text(file, from, "");
    const std::string how = how_made(recipe);
    return changes.empty() ? how : changes + " (" + how + ")";
}

}  // namespace

std::string_view recipe_word(RecipeKind k) {
    switch (k) {
        case RecipeKind::stock: return "stock";
        case RecipeKind::stock_overrides: return "stock+overrides";
        case RecipeKind::custom: return "custom";
        case RecipeKind::relabelled: return "relabelled";
        case RecipeKind::unknown: return "unknown";
    }
    return "unknown";
}

std::string Recipe::overrides() const {
    std::string typed = options.command_line();
    if (kind != RecipeKind::relabelled || !declared_type) return typed;
    return "--override-kv general.file_type=int:" + std::to_string(*declared_type) + (typed.empty() ? "" : " ") + typed;
}

std::string Recipe::revision() const {
    return std::string(kLlamaCppRevision.substr(0, 12)) + (order == TensorOrder::file ? " (file order)" : "");
}

Recipe infer_recipe(const FileHeader& h) {
    Recipe r;
    r.tensors = h.tensors.size();
    r.imatrix = std::any_of(h.metadata.begin(), h.metadata.end(),
                            [](const MetadataEntry& e) { return e.key.starts_with("quantize.imatrix."); });
    if (h.format != Format::gguf) return unknown(r, "not a GGUF file");
    if (auto t = metadata_integer(h, "general.file_type"); t && *t >= 0 && *t <= UINT32_MAX)
        r.declared_type = static_cast<uint32_t>(*t);
    auto desc = model_desc(h);
    if (auto* why = std::get_if<std::string>(&desc)) return unknown(r, *why);
    Subject s{ReplayModel(std::move(std::get<ModelDesc>(desc))), {}, TensorOrder::by_layer, {}};
    for (const TensorDesc& t : s.model().tensors) s.kinds.push_back(kind_of(t.name));
    if (!known_architecture(s.model().architecture))
        return unknown(r, "architecture " + s.model().architecture + " is not one llama.cpp " + r.revision() + " loads");
    if (!r.declared_type) return unknown(r, "no general.file_type");
    const FileTypeInfo* declared = find_file_type(*r.declared_type);
    if (!declared) return unknown(r, "general.file_type " + std::to_string(*r.declared_type) +
                                         " is not a type llama-quantize " + r.revision() + " writes");
    for (const TensorInfo& t : h.tensors) {
        if (!t.type_id || !find_ggml_type(*t.type_id))
            return unknown(r, "tensor " + t.name + " has a type ggml does not define");
        s.actual.push_back(*t.type_id);
    }
    Recipe best = explain_file(r, s, declared->id);
    if (!in_by_layer_order(s.model())) {
        // Not written by llama-quantize since ab3d71f: an older one visited the tensors in file order.
        s.order = r.order = TensorOrder::file;
        Recipe by_file = explain_file(r, s, declared->id);
        if (explanation_cost(by_file) < explanation_cost(best)) best = std::move(by_file);
    }
    best.why = why_text(h, best, s.prepared);  // the model prepared for the replays above serves once more
    return best;
}

FileHeader joined_shards(std::span<const FileHeader* const> shards) {
    FileHeader model = *shards.front();
    for (const FileHeader* h : shards.subspan(1)) model.tensors.insert(model.tensors.end(), h->tensors.begin(), h->tensors.end());
    return model;
}

std::string recipe_why(const FileHeader& base, const FileHeader& other, const Recipe& other_recipe) {
    std::map<std::string, uint32_t> base_types;
    for (const TensorInfo& t : base.tensors)
        if (t.type_id) base_types[t.name] = *t.type_id;
    std::vector<std::optional<uint32_t>> from;
    for (const TensorInfo& t : other.tensors) {
        auto b = base_types.find(t.name);
        from.push_back(b == base_types.end() ? std::nullopt : std::optional<uint32_t>(b->second));
    }
    return changes_text(other, from, "same tensor types") + " (" + how_made(other_recipe) + ")";
}

}  // namespace modelcat::quantize
