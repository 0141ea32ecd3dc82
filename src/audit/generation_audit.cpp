#include "audit/generation_audit.hpp"

#include <set>

#include "audit/converter_mapping.hpp"

namespace modelcat::audit {

namespace {

using V = model::MetadataVerdict;

// llama.cpp's special_eog_ids: the EOS, EOT, EOM and FIM pad/rep/sep ids, and tokens by their text.
std::set<int64_t> end_of_generation(const GgufKeys& g) {
    std::set<int64_t> ids;
    for (const char* key : {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id",
                            "tokenizer.ggml.fim_pad_token_id", "tokenizer.ggml.fim_rep_token_id", "tokenizer.ggml.fim_sep_token_id"})
        if (auto id = gguf_int(g.find(key))) ids.insert(*id);
    if (const auto* tokens = g.tokens())
        for (size_t i = 0; i < tokens->size(); ++i)
            if (is_eog_text((*tokens)[i])) ids.insert(static_cast<int64_t>(i));
    return ids;
}

std::string listed(const std::vector<int64_t>& ids, const std::vector<std::string>* tokens) {
    std::string s;
    for (int64_t id : ids) s += (s.empty() ? "" : ", ") + shown_token(id, tokens);
    return s;
}

// generation_config.json's eos_token_id (one id or a list): each must end generation in llama.cpp.
model::MetadataResult eos_row(const GgufKeys& g, simdjson::dom::element src) {
    const std::string key = "tokenizer.ggml.eos_token_id", path = "generation_config.json:eos_token_id";
    std::vector<int64_t> ids;
    if (auto one = as_integer(src)) ids.push_back(*one);
    else if (simdjson::dom::array a; src.get_array().get(a) == simdjson::SUCCESS)
        for (simdjson::dom::element e : a)
            if (auto id = as_integer(e)) ids.push_back(*id);
    auto eos = gguf_int(g.find(key));
    if (!eos) return make_row(key, path, "", shown(src), V::missing, true);
    std::vector<double> listed_ids = g.numbers("tokenizer.ggml.eos_token_ids").value_or(std::vector<double>{});
    std::set<int64_t> eos_ids(listed_ids.begin(), listed_ids.end()), eog = end_of_generation(g);
    std::vector<int64_t> in_list, by_eog, lost;
    for (int64_t id : ids) {
        if (id == *eos) continue;
        (eos_ids.count(id) ? in_list : eog.count(id) ? by_eog : lost).push_back(id);
    }
    const auto* t = g.tokens();
    std::string kept = std::find(ids.begin(), ids.end(), *eos) != ids.end()
                           ? "the GGUF kept " + shown_token(*eos, t) + " as eos_token_id"
                           : "eos_token_id " + shown_token(*eos, t) + " is not in the list";
    if (!in_list.empty()) kept += "; " + listed(in_list, t) + " in tokenizer.ggml.eos_token_ids";
    if (!by_eog.empty()) kept += "; " + listed(by_eog, t) + " end generation by llama.cpp's end-of-generation set";
    if (!lost.empty())
        return make_row(key, path, shown_token(*eos, t), shown(src), V::differs, true,
                        kept + "; " + listed(lost, t) + " would not end generation: not the eos_token_id, not in eos_token_ids, not an end-of-generation token");
    bool single = ids.size() == 1 && ids[0] == *eos;
    return make_row(key, path, shown_token(*eos, t), shown(src), single ? V::equal : V::converted, true, single ? "" : kept);
}

// An id the converter does not take from generation_config.json: compared when the GGUF has one.
model::MetadataResult id_row(const GgufKeys& g, const std::string& key, const std::string& path, int64_t want) {
    auto have = gguf_int(g.find(key));
    const auto* t = g.tokens();
    if (!have) return make_row(key, path, "", shown_token(want, t), V::not_checked, false, "the converter does not read generation_config.json; the GGUF has none");
    return make_row(key, path, shown_token(*have, t), shown_token(want, t), *have == want ? V::equal : V::differs, false);
}

model::MetadataResult text_row(const GgufKeys& g, const std::string& key, const std::string& path, const std::string& want) {
    const model::MetadataEntry* e = g.find(key);
    if (!e) return make_row(key, path, "", shown(want), V::missing, true);
    auto have = gguf_string(e);
    if (have == want) return make_row(key, path, shown(*e), shown(want), V::equal, true);
    if (!have) return make_row(key, path, shown(*e), shown(want), V::differs, true, "the converter writes a string");
    size_t i = 0;
    while (i < have->size() && i < want.size() && (*have)[i] == want[i]) ++i;
    size_t from = i > 20 ? i - 20 : 0;
    return make_row(key, path, shown(*e), shown(want), V::differs, true,
                    "first difference at byte " + std::to_string(i) + " of " + std::to_string(have->size()) + " and " +
                        std::to_string(want.size()) + ": GGUF " + shown(std::string_view(*have).substr(from, 60)) + ", source " +
                        shown(std::string_view(want).substr(from, 60)));
}

}  // namespace

void generation_rows(const GgufKeys& g, const CheckpointJson& c, std::vector<model::MetadataResult>& rows) {
    if (!c.generation_config.ok()) return;
    simdjson::dom::object gen = c.generation_config.root();
    if (auto bos = member(gen, "bos_token_id"); bos && as_integer(*bos))
        rows.push_back(id_row(g, "tokenizer.ggml.bos_token_id", "generation_config.json:bos_token_id", *as_integer(*bos)));
    if (auto eos = member(gen, "eos_token_id"); eos && !eos->is_null()) rows.push_back(eos_row(g, *eos));
    if (auto pad = member(gen, "pad_token_id"); pad && as_integer(*pad))
        rows.push_back(id_row(g, "tokenizer.ggml.padding_token_id", "generation_config.json:pad_token_id", *as_integer(*pad)));
}

// SpecialVocab: tokenizer_config.json's chat_template (a string, or a list of named templates), else
// chat_template.jinja; nothing at all without a tokenizer_config.json.
void chat_template_rows(const GgufKeys& g, const CheckpointJson& c, std::vector<model::MetadataResult>& rows) {
    const std::string key = "tokenizer.chat_template";
    const bool has_config = c.tokenizer_config.ok() && c.tokenizer_config.root().size() > 0;
    auto tc = has_config ? member(c.tokenizer_config.root(), "chat_template") : std::nullopt;
    if (std::string_view s; tc && tc->get_string().get(s) == simdjson::SUCCESS) {
        rows.push_back(text_row(g, key, "tokenizer_config.json:chat_template", std::string(s)));
    } else if (simdjson::dom::array list; tc && tc->get_array().get(list) == simdjson::SUCCESS) {
        for (simdjson::dom::element choice : list) {
            std::string_view name, text;
            if (choice["name"].get_string().get(name) || choice["template"].get_string().get(text) || name.empty()) continue;
            std::string clean(name);  // gguf_writer keeps ASCII letters and digits, '_' for the rest
            for (char& ch : clean)
                if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
            rows.push_back(text_row(g, clean == "default" ? key : key + "." + clean,
                                    "tokenizer_config.json:chat_template[" + std::string(name) + "]", std::string(text)));
        }
    } else if (has_config && !tc && c.texts.chat_template_jinja.bytes) {
        rows.push_back(text_row(g, key, "chat_template.jinja", *c.texts.chat_template_jinja.bytes));
    } else if (const auto* e = g.find(key)) {
        rows.push_back(make_row(key, "tokenizer_config.json:chat_template", shown(*e), "", V::not_checked, true,
                                has_config ? "the checkpoint has no chat template the audit reads (chat_template.json is not read)"
                                           : c.tokenizer_config.ok() ? "tokenizer_config.json is empty" : c.tokenizer_config.problem()));
    }
}

}  // namespace modelcat::audit
