#include "audit/metadata_values.hpp"

#include <charconv>
#include <cmath>

#include "model/content_hash.hpp"
#include "model/error.hpp"
#include "format/json_document.hpp"
#include "format/json_text.hpp"

namespace modelcat::audit {

namespace {

constexpr size_t kShownBytes = 80, kCutAt = 60;

template <typename T, typename Each>
std::optional<std::vector<T>> json_array(const model::MetadataEntry* e, Each each) {
    if (!e || e->type != model::ValueType::array) return std::nullopt;
    const auto& a = std::get<model::ArraySummary>(e->value);
    if (!a.json) return std::nullopt;
    simdjson::dom::parser parser;
    simdjson::dom::array arr;
    if (parser.parse(*a.json).get_array().get(arr)) return std::nullopt;
    std::vector<T> out;
    out.reserve(a.length);
    for (simdjson::dom::element v : arr)
        if (!each(v, out)) return std::nullopt;
    return out;
}

}  // namespace

GgufKeys::GgufKeys(const model::FileHeader& h) : h_(h) {
    for (const auto& e : h.metadata) by_key_.emplace(e.key, &e);
    arch_ = model::metadata_string(h, "general.architecture").value_or("");
    tokens_ = strings("tokenizer.ggml.tokens");
}

const model::MetadataEntry* GgufKeys::find(std::string_view key) const {
    auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : it->second;
}

bool GgufKeys::has_tensor(std::string_view name, uint64_t* elements) const {
    for (const auto& t : h_.tensors)
        if (t.name == name) {
            if (elements) *elements = t.n_elements;
            return true;
        }
    return false;
}

std::optional<std::vector<std::string>> GgufKeys::strings(std::string_view key) const {
    return json_array<std::string>(find(key), [](simdjson::dom::element v, std::vector<std::string>& out) {
        std::string_view s;
        if (v.get_string().get(s)) return false;
        out.emplace_back(s);
        return true;
    });
}

std::optional<std::vector<double>> GgufKeys::numbers(std::string_view key) const {
    return json_array<double>(find(key), [](simdjson::dom::element v, std::vector<double>& out) {
        double d;
        if (v.is_int64()) d = static_cast<double>(int64_t(v));
        else if (v.is_uint64()) d = static_cast<double>(uint64_t(v));
        else if (v.get_double().get(d)) return false;
        out.push_back(d);
        return true;
    });
}

JsonFile::JsonFile(std::string name, const CheckpointFile& file) : name_(std::move(name)) {
    if (!file.bytes) {
        problem_ = file.problem.empty() ? "no " + name_ + " beside the checkpoint" : name_ + ": " + file.problem;
        return;
    }
    parser_ = std::make_unique<simdjson::dom::parser>();
    try {
        root_ = format::parse_json_object(*parser_, {reinterpret_cast<const uint8_t*>(file.bytes->data()), file.bytes->size()}, name_);
    } catch (const model::FormatError& e) {
        problem_ = e.what();
    }
}

CheckpointJson::CheckpointJson(const CheckpointTexts& t)
    : texts(t),
      config("config.json", t.config),
      generation_config("generation_config.json", t.generation_config),
      tokenizer("tokenizer.json", t.tokenizer),
      tokenizer_config("tokenizer_config.json", t.tokenizer_config) {}

std::optional<Hparam> hparam(const JsonFile& config, std::string_view key) {
    if (!config.ok()) return std::nullopt;
    simdjson::dom::object text;
    if (config.root()["text_config"].get_object().get(text) == simdjson::SUCCESS)
        if (auto e = member(text, key)) return Hparam{config.name() + ":text_config." + std::string(key), *e};
    if (auto e = member(config.root(), key)) return Hparam{config.name() + ":" + std::string(key), *e};
    return std::nullopt;
}

std::optional<Hparam> find_hparam(const JsonFile& config, const std::vector<std::string_view>& keys) {
    for (auto k : keys)
        if (auto h = hparam(config, k)) return h;
    return std::nullopt;
}

std::optional<int64_t> as_integer(simdjson::dom::element e) {
    if (int64_t i; e.get_int64().get(i) == simdjson::SUCCESS) return i;
    return std::nullopt;
}

std::optional<double> as_number(simdjson::dom::element e) {
    if (double d; e.get_double().get(d) == simdjson::SUCCESS) return d;
    if (auto i = as_integer(e)) return static_cast<double>(*i);
    return std::nullopt;
}

std::optional<simdjson::dom::element> member(simdjson::dom::object o, std::string_view key) {
    simdjson::dom::element e;
    if (o[key].get(e)) return std::nullopt;
    return e;
}

std::optional<std::string> string_member(simdjson::dom::object o, std::string_view key) {
    std::string_view s;
    if (o[key].get_string().get(s)) return std::nullopt;
    return std::string(s);
}

std::optional<int64_t> gguf_int(const model::MetadataEntry* e) {
    if (!e) return std::nullopt;
    if (const auto* u = std::get_if<uint64_t>(&e->value)) return static_cast<int64_t>(*u);
    if (const auto* i = std::get_if<int64_t>(&e->value)) return *i;
    return std::nullopt;
}

std::optional<std::string> gguf_string(const model::MetadataEntry* e) {
    if (const auto* s = e ? std::get_if<std::string>(&e->value) : nullptr) return *s;
    return std::nullopt;
}

std::string shown(std::string_view s) {
    std::string out;
    if (s.size() <= kShownBytes) {
        format::append_json_string(out, s);
        return out;
    }
    size_t cut = kCutAt;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // at a UTF-8 boundary
    format::append_json_string(out, s.substr(0, cut));
    out.insert(out.size() - 1, "…");
    return out + " (" + std::to_string(s.size()) + " bytes)";
}

namespace {
// The shortest text that reads back as `v`: plain digits between 1e-4 and 1e15 (500000, not 5e+05).
template <typename T>
std::string shortest(T v) {
    char buf[64];
    const T mag = v < 0 ? -v : v;
    const bool plain = std::isfinite(v) && (mag == 0 || (mag >= T(1e-4) && mag < T(1e15)));
    auto r = plain ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed) : std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}
}  // namespace

std::string shown_f32(float f) { return shortest(f); }
std::string shown_number(double d) { return shortest(d); }

std::string shown(const model::MetadataEntry& e) {
    using model::ValueType;
    return std::visit([&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>) return std::to_string(v);
        else if constexpr (std::is_same_v<T, double>) return e.type == ValueType::f32 ? shown_f32(static_cast<float>(v)) : shown_number(v);
        else if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>) return shown(std::string_view(v));
        else if (v.json && v.json->size() <= kShownBytes) return *v.json;
        else return std::to_string(v.length) + " × " + model::value_type_name(v.element_type) + ", hash " + model::hex64(v.content_hash);
    }, e.value);
}

std::string shown(simdjson::dom::element e) {
    if (std::string_view s; e.get_string().get(s) == simdjson::SUCCESS) return shown(s);
    std::string text = simdjson::minify(e);
    if (text.size() <= kShownBytes) return text;
    return text.substr(0, kCutAt) + "… (" + std::to_string(text.size()) + " bytes)";
}

std::string shown_token(int64_t id, const std::vector<std::string>* tokens) {
    std::string s = std::to_string(id);
    if (tokens && id >= 0 && static_cast<uint64_t>(id) < tokens->size()) s += " " + shown((*tokens)[id]);
    return s;
}

uint64_t array_hash(const std::vector<std::string>& v) {
    model::ContentHash h;
    h.update_u64le(static_cast<uint64_t>(model::ValueType::string));
    h.update_u64le(v.size());
    for (const auto& s : v) {
        h.update_u64le(s.size());
        h.update({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
    }
    return h.digest();
}

namespace {
template <typename T>
uint64_t fixed_array_hash(model::ValueType type, const std::vector<T>& v) {
    model::ContentHash h;
    h.update_u64le(static_cast<uint64_t>(type));
    h.update_u64le(v.size());
    for (T x : v) {
        auto bits = std::bit_cast<uint32_t>(x);
        uint8_t b[4] = {static_cast<uint8_t>(bits), static_cast<uint8_t>(bits >> 8), static_cast<uint8_t>(bits >> 16),
                        static_cast<uint8_t>(bits >> 24)};
        h.update(b);
    }
    return h.digest();
}
}  // namespace

uint64_t array_hash(const std::vector<int32_t>& v) { return fixed_array_hash(model::ValueType::i32, v); }
uint64_t array_hash(const std::vector<float>& v) { return fixed_array_hash(model::ValueType::f32, v); }

model::MetadataResult make_row(std::string key, std::string source_path, std::string gguf_value, std::string source_value,
                        model::MetadataVerdict verdict, bool critical, std::string note) {
    return {std::move(key), std::move(source_path), std::move(gguf_value), std::move(source_value), verdict, critical, std::move(note)};
}

}  // namespace modelcat::audit
