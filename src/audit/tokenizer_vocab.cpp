#include "audit/tokenizer_vocab.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>

#include "audit/converter_mapping.hpp"
#include "audit/sentencepiece_vocab.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

namespace modelcat::audit {

std::vector<AddedToken> added_tokens(simdjson::dom::object tokenizer) {
    std::vector<AddedToken> out;
    simdjson::dom::array arr;
    if (tokenizer["added_tokens"].get_array().get(arr)) return out;
    for (simdjson::dom::element e : arr) {
        simdjson::dom::object o;
        int64_t id;
        std::string_view content;
        if (e.get_object().get(o) || o["id"].get_int64().get(id) || o["content"].get_string().get(content)) continue;
        out.push_back({id, std::string(content), value_or(o["special"], false)});
    }
    return out;
}

namespace {

// CONTROL for special or special-looking added tokens; USER_DEFINED with "▁" pre-normalized to " " otherwise.
int32_t added_type(std::string& content, bool special) {
    if (special || looks_special(content)) return kControl;
    for (size_t at; (at = content.find("\xe2\x96\x81")) != std::string::npos;) content.replace(at, 3, " ");
    return kUserDefined;
}

// The vocabulary is padded to this size with a string per id: a stranger's 1e9 is refused before any is made.
std::optional<uint64_t> config_vocab_size(const JsonFile& config, const std::vector<std::string_view>& keys) {
    auto h = find_hparam(config, keys);
    auto n = h ? as_integer(h->value) : std::nullopt;
    if (!n || *n <= 0) return std::nullopt;
    if (static_cast<uint64_t>(*n) > model::Limits::max_vocab_size)
        throw model::FormatError(h->path + ": vocab_size " + std::to_string(*n) + " exceeds the cap of " +
                                 std::to_string(model::Limits::max_vocab_size) + " tokens");
    return static_cast<uint64_t>(*n);
}

ExpectedVocab sentencepiece(const CheckpointJson& c) {
    SentencePieceVocab sp = read_sentencepiece(*c.texts.tokenizer_model.bytes);
    uint64_t n = config_vocab_size(c.config, {"vocab_size_per_layer_input", "vocab_size"}).value_or(sp.pieces.size());
    ExpectedVocab v{"tokenizer.model", "llama", "tokenizer.model", true, {}, {}, std::vector<float>(n, -10000.0f), std::nullopt, ""};
    v.tokens.resize(n), v.types.assign(n, kUnused);
    for (uint64_t i = 0; i < n; ++i) v.tokens[i] = "[PAD" + std::to_string(i) + "]";
    for (uint64_t i = 0; i < std::min<uint64_t>(n, sp.pieces.size()); ++i)
        v.tokens[i] = sp.pieces[i], (*v.scores)[i] = sp.scores[i], v.types[i] = sp.types[i];
    simdjson::dom::object decoder;
    if (c.tokenizer_config.ok() && c.tokenizer_config.root()["added_tokens_decoder"].get_object().get(decoder) == simdjson::SUCCESS) {
        for (auto [key, data] : decoder) {
            uint64_t id = 0;
            std::string_view content;
            if (std::from_chars(key.data(), key.data() + key.size(), id).ec != std::errc{} || id >= n ||
                data["content"].get_string().get(content))
                continue;
            std::string text(content);
            v.types[id] = added_type(text, value_or(data["special"], false)), (*v.scores)[id] = -1000.0f, v.tokens[id] = text;
        }
        v.source += " + tokenizer_config.json:added_tokens_decoder";
    }
    v.note = "an added_tokens.json, if any, is not read";
    return v;
}

// get_vocab_base: ids 0..vocab_size-1 from model.vocab and added_tokens, holes as [PADi].
ExpectedVocab gpt2(const CheckpointJson& c) {
    simdjson::dom::object root = c.tokenizer.root(), vocab;
    std::map<int64_t, std::string> by_id;
    if (root["model"]["vocab"].get_object().get(vocab) == simdjson::SUCCESS)
        for (auto [text, id] : vocab)
            if (auto i = as_integer(id)) by_id[*i] = std::string(text);
    std::set<std::string> added_set;
    std::map<int64_t, bool> special;
    for (const auto& a : added_tokens(root)) by_id[a.id] = a.content, added_set.insert(a.content), special[a.id] = a.special;
    uint64_t n = config_vocab_size(c.config, {"vocab_size"}).value_or(by_id.size());
    ExpectedVocab v{"tokenizer.json:model.vocab + added_tokens", "gpt2", "tokenizer.json:model.type", false, {}, {}, std::nullopt, std::nullopt, ""};
    for (uint64_t i = 0; i < n; ++i) {
        auto it = by_id.find(static_cast<int64_t>(i));
        if (it == by_id.end()) {
            v.tokens.push_back("[PAD" + std::to_string(i) + "]"), v.types.push_back(kUnused);
            continue;
        }
        std::string text = it->second;
        v.types.push_back(added_set.count(text) ? added_type(text, special[it->first]) : kNormal);
        v.tokens.push_back(std::move(text));
    }
    v.note = "added tokens with normalized=false are taken as transformers' encode+decode leaves them: unchanged";
    simdjson::dom::array merges;
    if (root["model"]["merges"].get_array().get(merges)) return v;
    v.merges.emplace();
    for (simdjson::dom::element m : merges) {
        std::string_view s;
        simdjson::dom::array pair;
        if (m.get_string().get(s) == simdjson::SUCCESS) {
            v.merges->emplace_back(s);
        } else if (m.get_array().get(pair) == simdjson::SUCCESS && pair.size() == 2) {
            std::string joined;  // the pair form (transformers >= 4.45): a space inside a part becomes U+0120
            for (simdjson::dom::element part : pair) {
                std::string_view p;
                if (part.get_string().get(p)) continue;
                if (!joined.empty()) joined += ' ';
                for (char ch : p) joined += ch == ' ' ? std::string("\xc4\xa0") : std::string(1, ch);
            }
            v.merges->push_back(std::move(joined));
        }
    }
    return v;
}

bool is_byte_piece(const std::string& t) {
    return t.size() == 6 && t.starts_with("<0x") && t.back() == '>' && std::isxdigit(static_cast<unsigned char>(t[3])) &&
           std::isxdigit(static_cast<unsigned char>(t[4]));
}

// gguf-py's LlamaHfVocab: the model's vocabulary, then added tokens past it; CONTROL for transformers'
// special tokens (tokenizer_config.json's named ones and additional_special_tokens), BYTE for <0xNN>.
ExpectedVocab llama_hf(const CheckpointJson& c) {
    ExpectedVocab base = gpt2(c);
    simdjson::dom::object root = c.tokenizer.root(), vocab;
    uint64_t n_base = root["model"]["vocab"].get_object().get(vocab) == simdjson::SUCCESS ? vocab.size() : 0;
    std::set<std::string> specials;
    if (c.tokenizer_config.ok()) {
        simdjson::dom::object tc = c.tokenizer_config.root();
        for (const auto& k : special_token_keys())
            if (auto e = member(tc, std::string(k.type) + "_token")) {
                std::string_view s;
                if (e->get_string().get(s) == simdjson::SUCCESS || (*e)["content"].get_string().get(s) == simdjson::SUCCESS)
                    specials.emplace(s);
            }
        simdjson::dom::array extra;
        if (tc["additional_special_tokens"].get_array().get(extra) == simdjson::SUCCESS)
            for (simdjson::dom::element e : extra) {
                std::string_view s;
                if (e.get_string().get(s) == simdjson::SUCCESS || e["content"].get_string().get(s) == simdjson::SUCCESS) specials.emplace(s);
            }
    }
    ExpectedVocab v{"tokenizer.json:model.vocab + added_tokens", "llama", "tokenizer.json:model.type", true, {}, {}, std::nullopt, std::nullopt, ""};
    std::map<int64_t, std::string> added;
    for (const auto& a : added_tokens(root))
        if (static_cast<uint64_t>(a.id) >= n_base) added[a.id] = a.content;
    for (uint64_t i = 0; i < std::min<uint64_t>(n_base, base.tokens.size()); ++i) {
        const std::string& t = base.tokens[i];
        v.tokens.push_back(t), v.types.push_back(is_byte_piece(t) ? kByte : specials.count(t) ? kControl : kNormal);
    }
    for (const auto& [id, text] : added) v.tokens.push_back(text), v.types.push_back(specials.count(text) ? kControl : kUserDefined);
    v.scores = std::vector<float>(v.tokens.size(), -1000.0f);
    return v;
}

// LlamaHfVocab's test: a BPE with byte_fallback and a Sequence decoder, and not Llama 3's (ignore_merges, no byte_fallback).
bool is_llama_hf(simdjson::dom::object root) {
    simdjson::dom::object model;
    if (root["model"].get_object().get(model)) return false;
    const std::string_view type = value_or(model["type"], std::string_view());
    if (type == "BPE" && value_or(model["ignore_merges"], false) && !value_or(model["byte_fallback"], true)) return false;
    return type == "BPE" && value_or(model["byte_fallback"], false) && value_or(root["decoder"]["type"], std::string_view()) == "Sequence";
}

}  // namespace

VocabOrWhy expected_vocab(const std::string& architecture, const CheckpointJson& c) {
    const CheckpointFile& spm = c.texts.tokenizer_model;
    try {
        if (spm.bytes) return {sentencepiece(c), ""};
        if (!spm.problem.empty()) return {std::nullopt, "tokenizer.model: " + spm.problem};
        if (!c.tokenizer.ok()) {
            if (!c.texts.tokenizer.bytes && c.texts.tokenizer.problem.empty())
                return {std::nullopt, "no tokenizer.model or tokenizer.json beside the checkpoint"};
            return {std::nullopt, c.tokenizer.problem()};
        }
        if (is_llama_model(architecture) && is_llama_hf(c.tokenizer.root())) return {llama_hf(c), ""};
        return {gpt2(c), ""};
    } catch (const model::FormatError& e) {
        return {std::nullopt, e.what()};
    }
}

}  // namespace modelcat::audit
