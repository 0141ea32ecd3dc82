#include "audit/tokenizer_audit.hpp"

#include <bit>
#include <map>
#include <set>

#include "audit/converter_mapping.hpp"
#include "audit/generation_audit.hpp"
#include "audit/tokenizer_vocab.hpp"
#include "model/content_hash.hpp"

namespace modelcat::audit {

namespace {

using V = model::MetadataVerdict;

bool same(const std::string& a, const std::string& b) { return a == b; }
bool same(int32_t a, int32_t b) { return a == b; }
bool same(float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b); }
std::string show_one(const std::string& s) { return shown(s); }
std::string show_one(int32_t v) { return std::to_string(v); }
std::string show_one(float v) { return shown_f32(v); }

// An array compared as the parser's content hash; its values, when kept, name the first difference.
template <typename T>
model::MetadataResult compare_array(const GgufKeys& g, const std::string& key, const std::string& path, const std::vector<T>& want,
                             model::ValueType elem, const std::optional<std::vector<T>>& have) {
    const model::MetadataEntry* e = g.find(key);
    const uint64_t hash = array_hash(want);
    std::string src = std::to_string(want.size()) + " × " + model::value_type_name(elem) + ", hash " + model::hex64(hash);
    if (!e) return make_row(key, path, "", src, V::missing, false);
    const auto* a = std::get_if<model::ArraySummary>(&e->value);
    if (!a || a->element_type != elem)
        return make_row(key, path, shown(*e), src, V::differs, false, std::string("the converter writes an array of ") + model::value_type_name(elem));
    if (a->length == want.size() && a->content_hash == hash) return make_row(key, path, shown(*e), src, V::equal, false);
    std::string note = a->length == want.size() ? "" : "GGUF has " + std::to_string(a->length) + ", the source " + std::to_string(want.size()) + "; ";
    if (!have) return make_row(key, path, shown(*e), src, V::differs, false, note + "values over the audit's cap: compared by hash only");
    size_t i = 0;
    while (i < have->size() && i < want.size() && same((*have)[i], want[i])) ++i;
    note += "first difference at index " + std::to_string(i) + ": GGUF " + (i < have->size() ? show_one((*have)[i]) : "none") +
            ", source " + (i < want.size() ? show_one(want[i]) : "none");
    return make_row(key, path, shown(*e), src, V::differs, false, note);
}

template <typename T>
std::optional<std::vector<T>> narrowed(const std::optional<std::vector<double>>& v) {
    if (!v) return std::nullopt;
    return std::vector<T>(v->begin(), v->end());
}

// The first Split regex of tokenizer.json's pre_tokenizer, else "ByteLevel" for ByteLevel's own regex.
std::optional<std::string> pre_tokenizer_regex(simdjson::dom::element p) {
    std::string_view type;
    if (p["type"].get_string().get(type)) return std::nullopt;
    if (type == "Split") {
        std::string_view re;
        if (p["pattern"]["Regex"].get_string().get(re) == simdjson::SUCCESS) return std::string(re);
    }
    if (type == "Sequence") {
        simdjson::dom::array seq;
        std::optional<std::string> byte_level;
        if (p["pretokenizers"].get_array().get(seq) == simdjson::SUCCESS)
            for (simdjson::dom::element q : seq) {
                auto r = pre_tokenizer_regex(q);
                if (r && *r != "ByteLevel") return r;
                if (r) byte_level = r;
            }
        return byte_level;
    }
    if (type == "ByteLevel" && value_or(p["use_regex"], true)) return "ByteLevel";
    return std::nullopt;
}

model::MetadataResult pre_row(const GgufKeys& g, const ExpectedVocab& v, const CheckpointJson& c) {
    const std::string key = "tokenizer.ggml.pre";
    const model::MetadataEntry* e = g.find(key);
    auto have = gguf_string(e);
    std::string shown_have = e ? shown(*e) : "";
    if (v.sentencepiece_like)
        return make_row(key, v.model_source, shown_have, shown("default"), !e ? V::missing : have == "default" ? V::converted : V::differs,
                        false, "the converter writes \"default\" for this vocabulary");
    simdjson::dom::element p;
    std::optional<std::string> re;
    if (c.tokenizer.root()["pre_tokenizer"].get(p) == simdjson::SUCCESS) re = pre_tokenizer_regex(p);
    const std::string path = "tokenizer.json:pre_tokenizer";
    if (!re) return make_row(key, path, shown_have, "", V::not_checked, false, "no Split or ByteLevel pre-tokenizer in tokenizer.json");
    if (!e) return make_row(key, path, "", shown(*re), V::missing, false);
    const PreTokenizerRule* rule = have ? pre_tokenizer_named(*have) : nullptr;
    if (!rule)
        return make_row(key, path, shown_have, shown(*re), V::not_checked, false,
                        "not in the audit's table of llama.cpp pre-tokenizers (llama3, qwen2, tekken, gpt-2 families)");
    if (rule->regex == *re)
        return make_row(key, path, shown_have, shown(*re), V::converted, false,
                        "tokenizer.json splits as llama.cpp's \"" + *have + "\" does");
    const PreTokenizerRule* other = pre_tokenizer_splitting(*re);
    return make_row(key, path, shown_have, shown(*re), V::differs, false,
                    other ? "tokenizer.json splits as llama.cpp's \"" + std::string(other->names.front()) + "\" does, not as \"" + *have + "\""
                          : "tokenizer.json splits with a regex that is not \"" + *have + "\"'s");
}

void vocab_rows(const GgufKeys& g, const ExpectedVocab& v, const CheckpointJson& c, std::vector<model::MetadataResult>& rows) {
    const model::MetadataEntry* model = g.find("tokenizer.ggml.model");
    rows.push_back(make_row("tokenizer.ggml.model", v.model_source, model ? shown(*model) : "", shown(v.model),
                            !model ? V::missing : gguf_string(model) == v.model ? V::converted : V::differs, false,
                            v.model == "llama" ? "a SentencePiece-style vocabulary is written as \"llama\"" : "byte-level BPE is written as \"gpt2\""));
    rows.push_back(pre_row(g, v, c));
    rows.push_back(compare_array(g, "tokenizer.ggml.tokens", v.source, v.tokens, model::ValueType::string, g.strings("tokenizer.ggml.tokens")));
    rows.back().note = rows.back().note.empty() ? v.note : rows.back().note + "; " + v.note;
    rows.push_back(compare_array(g, "tokenizer.ggml.token_type", v.source, v.types, model::ValueType::i32,
                                 narrowed<int32_t>(g.numbers("tokenizer.ggml.token_type"))));
    if (v.scores)
        rows.push_back(compare_array(g, "tokenizer.ggml.scores", v.source, *v.scores, model::ValueType::f32,
                                     narrowed<float>(g.numbers("tokenizer.ggml.scores"))));
    if (v.merges && !v.merges->empty())
        rows.push_back(compare_array(g, "tokenizer.ggml.merges", "tokenizer.json:model.merges", *v.merges, model::ValueType::string,
                                     g.strings("tokenizer.ggml.merges")));
}

struct Special {
    int64_t id;
    std::string path;
};
struct Flag {
    bool value;
    std::string path;
};
struct SpecialVocab {
    std::map<std::string, Special> ids;
    std::map<std::string, Flag> add;
    std::vector<std::string> types;
    std::map<std::string, std::string> rewritten;  // tokenizer_config.json values SpecialVocab replaced (bos_token ...)
    bool has_config = false;                       // a non-empty tokenizer_config.json
};

// tokenizer_config.json's `{name}` as SpecialVocab sees it: its text when a string, and whether it is truthy.
struct ConfigToken {
    bool truthy = false;
    std::optional<std::string> text;
};
ConfigToken config_token(const CheckpointJson& c, const SpecialVocab& s, const std::string& name) {
    if (auto it = s.rewritten.find(name); it != s.rewritten.end()) return {true, it->second};
    auto e = c.tokenizer_config.ok() ? member(c.tokenizer_config.root(), name) : std::nullopt;
    if (!e) return {};
    if (std::string_view t; e->get_string().get(t) == simdjson::SUCCESS) return {!t.empty(), std::string(t)};
    if (simdjson::dom::object o; e->get_object().get(o) == simdjson::SUCCESS) return {o.size() > 0, std::nullopt};
    return {};
}

// SpecialVocab._try_load_from_tokenizer_json's reading of the post-processor: which tokens are added, and
// a TemplateProcessing whose last token is not the EOS moving the EOS (the old one becomes EOT).
void post_processor(const CheckpointJson& c, SpecialVocab& s) {
    simdjson::dom::element pp;
    if (c.tokenizer.root()["post_processor"].get(pp) || !pp.is_object()) return;
    std::vector<simdjson::dom::element> procs;
    simdjson::dom::array list;
    if (pp["processors"].get_array().get(list) == simdjson::SUCCESS) procs.assign(list.begin(), list.end());
    else procs.push_back(pp);
    const std::string path = "tokenizer.json:post_processor";
    for (simdjson::dom::element p : procs) {
        std::string_view type;
        if (p["type"].get_string().get(type)) continue;
        if (type == "RobertaProcessing")
            for (const char* t : {"bos", "eos", "sep"}) s.add[t] = {true, path};
        simdjson::dom::array single;
        if (type != "TemplateProcessing" || p["single"].get_array().get(single) || single.size() < 2) continue;
        std::string_view first = value_or(single.at(0)["SpecialToken"]["id"], std::string_view());
        std::string_view last = value_or(single.at(single.size() - 1)["SpecialToken"]["id"], std::string_view());
        if (!first.empty()) {
            ConfigToken bos = config_token(c, s, "bos_token"), cls = config_token(c, s, "cls_token");
            if (!s.has_config) bos = {true, std::string(first)};
            else if (first != bos.text && first != cls.text) {
                if (!bos.truthy) s.rewritten["bos_token"] = first, bos = {true, std::string(first)};
                if (!cls.truthy) s.rewritten["cls_token"] = first, cls = {true, std::string(first)};
            }
            s.add["bos"] = {first == bos.text || first == cls.text, path + ".single"};
        }
        if (!last.empty()) {
            ConfigToken eos = config_token(c, s, "eos_token");
            if (!s.has_config) eos = {true, std::string(last)};
            else if (last != eos.text) {
                for (const char* moved : {"eot", "eom"})
                    if (std::find(s.types.begin(), s.types.end(), moved) == s.types.end()) {
                        s.types.push_back(moved);
                        if (eos.text) s.rewritten[std::string(moved) + "_token"] = *eos.text;
                        break;
                    }
                s.rewritten["eos_token"] = last, eos = {true, std::string(last)};
            }
            s.add["eos"] = {last == eos.text, path + ".single"};
        }
    }
}

// gguf-py's SpecialVocab: tokenizer.json's added tokens named by tokenizer_config.json, then config.json's ids.
SpecialVocab special_vocab(const CheckpointJson& c, std::optional<uint64_t> n_vocab) {
    SpecialVocab s;
    for (const auto& k : special_token_keys())
        if (k.type != "eot" && k.type != "eom") s.types.emplace_back(k.type);
    s.has_config = c.tokenizer_config.ok() && c.tokenizer_config.root().size() > 0;
    auto set = [&](const std::string& type, std::optional<int64_t> id, std::string path) {
        if (id && *id >= 0 && (!n_vocab || static_cast<uint64_t>(*id) < *n_vocab) && !s.ids.count(type)) s.ids[type] = {*id, std::move(path)};
    };
    std::vector<AddedToken> added;
    if (c.tokenizer.ok()) added = added_tokens(c.tokenizer.root()), post_processor(c, s);
    if (s.has_config) {
        for (const auto& type : s.types) {
            if (auto flag = member(c.tokenizer_config.root(), "add_" + type + "_token"); flag && flag->is_bool())
                s.add[type] = {value_or(*flag, false), "tokenizer_config.json:add_" + type + "_token"};
            std::optional<std::string> content = config_token(c, s, type + "_token").text;
            if (auto e = member(c.tokenizer_config.root(), type + "_token"); !content && e)
                if (std::string_view t; (*e)["content"].get_string().get(t) == simdjson::SUCCESS) content = std::string(t);
            if (!content) continue;
            auto hit = std::find_if(added.begin(), added.end(), [&](const AddedToken& a) { return a.content == *content; });
            if (hit != added.end()) set(type, hit->id, "tokenizer_config.json:" + type + "_token");
        }
    }
    for (const auto& type : s.types)
        if (auto h = hparam(c.config, type + "_token_id")) set(type, as_integer(h->value), h->path);
    return s;
}

void special_rows(const GgufKeys& g, const SpecialVocab& s, const std::vector<std::string>* tokens, std::vector<model::MetadataResult>& rows) {
    for (const SpecialTokenKey& k : special_token_keys()) {
        auto want = s.ids.find(std::string(k.type));
        if (want == s.ids.end()) continue;
        const std::string key(k.key);
        const model::MetadataEntry* e = g.find(key);
        std::string src = shown_token(want->second.id, tokens);
        if (!e) {
            rows.push_back(make_row(key, want->second.path, "", src, V::missing, k.critical));
            continue;
        }
        const bool same_id = gguf_int(e) == want->second.id, ok = same_id && e->type == model::ValueType::u32;
        rows.push_back(make_row(key, want->second.path, shown_token(gguf_int(e).value_or(-1), g.tokens()), src, ok ? V::equal : V::differs,
                                k.critical, same_id && !ok ? "the converter writes u32" : ""));
    }
    for (const auto& [type, flag] : s.add) {
        const std::string key = "tokenizer.ggml.add_" + type + "_token";
        const model::MetadataEntry* e = g.find(key);
        const bool* have = e ? std::get_if<bool>(&e->value) : nullptr;
        rows.push_back(make_row(key, flag.path, e ? shown(*e) : "", flag.value ? "true" : "false",
                                !e ? V::missing : have && *have == flag.value ? V::equal : V::differs, false));
    }
}

}  // namespace

void audit_tokenizer(const GgufKeys& g, const CheckpointJson& c, std::vector<model::MetadataResult>& rows) {
    VocabOrWhy v = expected_vocab(g.architecture(), c);
    if (v.vocab) {
        vocab_rows(g, *v.vocab, c, rows);
    } else {
        for (const char* key : {"tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens", "tokenizer.ggml.token_type",
                                "tokenizer.ggml.scores", "tokenizer.ggml.merges"})
            if (const auto* e = g.find(key)) rows.push_back(make_row(key, "tokenizer.model|tokenizer.json", shown(*e), "", V::not_checked, false, v.why));
    }
    std::optional<uint64_t> n_vocab;
    if (v.vocab && v.vocab->sentencepiece_like) n_vocab = v.vocab->tokens.size();
    special_rows(g, special_vocab(c, n_vocab), v.vocab ? &v.vocab->tokens : g.tokens(), rows);
    if (is_llama_model(g.architecture()) && c.tokenizer_config.ok()) {
        if (auto src = member(c.tokenizer_config.root(), "add_prefix_space"); src && src->is_bool()) {
            const bool flag = value_or(*src, false);
            const auto* e = g.find("tokenizer.ggml.add_space_prefix");
            const bool* have = e ? std::get_if<bool>(&e->value) : nullptr;
            rows.push_back(make_row("tokenizer.ggml.add_space_prefix", "tokenizer_config.json:add_prefix_space", e ? shown(*e) : "",
                                    flag ? "true" : "false", !e ? V::missing : have && *have == flag ? V::equal : V::differs, false));
        }
    }
    generation_rows(g, c, rows);
    chat_template_rows(g, c, rows);
}

}  // namespace modelcat::audit
