#pragma once
// What the metadata audit's two halves (audit/metadata_audit.cpp, audit/tokenizer_audit.cpp)
// share: the GGUF's keys by name, the checkpoint's JSON files parsed once, and
// how values are shown in a row (escaped, shortened).
#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "audit/checkpoint_files.hpp"
#include "model/audit_result.hpp"
#include "model/header.hpp"

namespace modelcat::audit {

class GgufKeys {
public:
    explicit GgufKeys(const model::FileHeader& h);
    const model::MetadataEntry* find(std::string_view key) const;
    bool has_tensor(std::string_view name, uint64_t* elements = nullptr) const;
    const std::string& architecture() const { return arch_; }
    // A string array's values (kept by model::Limits::kept_arrays), or nullopt when only hashed.
    std::optional<std::vector<std::string>> strings(std::string_view key) const;
    std::optional<std::vector<double>> numbers(std::string_view key) const;
    // id -> token text from tokenizer.ggml.tokens, when its values were kept.
    const std::vector<std::string>* tokens() const { return tokens_ ? &*tokens_ : nullptr; }

private:
    const model::FileHeader& h_;
    std::unordered_map<std::string_view, const model::MetadataEntry*> by_key_;
    std::string arch_;
    std::optional<std::vector<std::string>> tokens_;
};

// One checkpoint JSON file: its root object, or why there is none (absent, unread, not JSON).
class JsonFile {
public:
    JsonFile(std::string name, const CheckpointFile& file);
    const std::string& name() const { return name_; }
    bool ok() const { return root_.has_value(); }
    simdjson::dom::object root() const { return *root_; }
    const std::string& problem() const { return problem_; }  // "" when ok

private:
    std::string name_;
    std::unique_ptr<simdjson::dom::parser> parser_;
    std::optional<simdjson::dom::object> root_;
    std::string problem_;
};

// The checkpoint's JSON files, each parsed once.
struct CheckpointJson {
    explicit CheckpointJson(const CheckpointTexts& t);
    const CheckpointTexts& texts;
    JsonFile config, generation_config, tokenizer, tokenizer_config;
};

// A config.json value as the converter's hparams hold it: text_config's keys over the root's.
struct Hparam {
    std::string path;  // config.json:text_config.rope_theta
    simdjson::dom::element value;
};
std::optional<Hparam> hparam(const JsonFile& config, std::string_view key);
// find_hparam: the first of `keys` present (even as null).
std::optional<Hparam> find_hparam(const JsonFile& config, const std::vector<std::string_view>& keys);

std::optional<int64_t> as_integer(simdjson::dom::element e);  // a JSON integer (not 2.0)
std::optional<double> as_number(simdjson::dom::element e);

// A member by key, or nullopt when absent (a JSON null is present).
std::optional<simdjson::dom::element> member(simdjson::dom::object o, std::string_view key);
std::optional<std::string> string_member(simdjson::dom::object o, std::string_view key);
// A looked-up value of type T, or `fallback` when it is absent or of another type.
template <typename T>
T value_or(simdjson::simdjson_result<simdjson::dom::element> r, T fallback) {
    T v;
    return r.get(v) == simdjson::SUCCESS ? v : fallback;
}
template <typename T>
T value_or(simdjson::dom::element e, T fallback) {
    T v;
    return e.get(v) == simdjson::SUCCESS ? v : fallback;
}

// A GGUF value as an integer (any integer type) or a string; nullopt for another type or no entry.
std::optional<int64_t> gguf_int(const model::MetadataEntry* e);
std::optional<std::string> gguf_string(const model::MetadataEntry* e);

// Shown in a row: strings JSON-quoted and escaped, cut to about 80 bytes with their length.
std::string shown(std::string_view s);
std::string shown_f32(float f);         // the shortest text that reads back as this f32
std::string shown_number(double d);     // the same for a double
std::string shown(const model::MetadataEntry& e);
std::string shown(simdjson::dom::element e);  // a JSON value, minified and shortened
std::string shown_token(int64_t id, const std::vector<std::string>* tokens);  // 128009 "<|eot_id|>"

// The content hash the GGUF parser gives an array of these elements (model::ArraySummary).
uint64_t array_hash(const std::vector<std::string>& v);
uint64_t array_hash(const std::vector<int32_t>& v);
uint64_t array_hash(const std::vector<float>& v);

model::MetadataResult make_row(std::string key, std::string source_path, std::string gguf_value, std::string source_value,
                        model::MetadataVerdict verdict, bool critical, std::string note = "");

}  // namespace modelcat::audit
