#include "format/model_config.hpp"

#include <simdjson.h>

#include <cmath>
#include <numbers>

#include "format/json_document.hpp"
#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::format {

namespace {

std::optional<double> number(simdjson::dom::object o, std::string_view key, const std::string& path) {
    simdjson::dom::element e;
    if (o[key].get(e) || e.is_null()) return std::nullopt;
    double d;
    if (e.get_double().get(d) == simdjson::SUCCESS) return d;
    if (int64_t i; e.get_int64().get(i) == simdjson::SUCCESS) return static_cast<double>(i);
    if (uint64_t u; e.get_uint64().get(u) == simdjson::SUCCESS) return static_cast<double>(u);
    throw model::FormatError(0, "config.json: " + path + std::string(key) + " is not a number");
}

std::optional<uint64_t> count(simdjson::dom::object o, std::string_view key) {
    auto d = number(o, key, "$.");
    if (!d) return std::nullopt;
    if (*d < 0 || *d != std::floor(*d)) throw model::FormatError(0, "config.json: $." + std::string(key) + " is not a whole number");
    return static_cast<uint64_t>(*d);
}

std::optional<Llama3RopeScaling> llama3_scaling(simdjson::dom::object root, std::optional<double> top_original) {
    simdjson::dom::object rs;
    if (root["rope_scaling"].get_object().get(rs)) return std::nullopt;
    std::string_view type;
    if (rs["rope_type"].get_string().get(type) && rs["type"].get_string().get(type)) return std::nullopt;
    if (type != "llama3") return std::nullopt;
    Llama3RopeScaling s;
    const std::string p = "$.rope_scaling.";
    s.factor = number(rs, "factor", p).value_or(s.factor);
    s.low_freq_factor = number(rs, "low_freq_factor", p).value_or(s.low_freq_factor);
    s.high_freq_factor = number(rs, "high_freq_factor", p).value_or(s.high_freq_factor);
    s.original_context = number(rs, "original_max_position_embeddings", p).value_or(top_original.value_or(s.original_context));
    return s;
}

}  // namespace

std::optional<uint64_t> ModelConfig::rotary_dim() const {
    if (head_dim) return head_dim;
    if (hidden_size && heads && *heads) return *hidden_size / *heads;
    return std::nullopt;
}

ModelConfig parse_model_architecture(std::span<const uint8_t> json) {
    simdjson::dom::parser parser;
    simdjson::dom::object root = parse_json_object(parser, json, "config.json");
    ModelConfig c;
    std::string_view mt;
    if (root["model_type"].get_string().get(mt) == simdjson::SUCCESS) c.model_type = std::string(mt);
    c.hidden_size = count(root, "hidden_size");
    c.heads = count(root, "num_attention_heads");
    c.kv_heads = count(root, "num_key_value_heads");
    if (!c.kv_heads) c.kv_heads = c.heads;  // no GQA: as many kv heads as heads
    c.head_dim = count(root, "head_dim");
    c.rope_theta = number(root, "rope_theta", "$.").value_or(c.rope_theta);
    bool tied = false;
    if (root["tie_word_embeddings"].get_bool().get(tied) == simdjson::SUCCESS) c.tie_word_embeddings = tied;
    c.llama3_scaling = llama3_scaling(root, number(root, "original_max_position_embeddings", "$."));
    return c;
}

std::vector<double> llama3_rope_factors(const ModelConfig& c) {
    auto dim = c.rotary_dim();
    if (!c.llama3_scaling || !dim || *dim < 2) return {};
    const Llama3RopeScaling& s = *c.llama3_scaling;
    double low_wavelen = s.original_context / s.low_freq_factor, high_wavelen = s.original_context / s.high_freq_factor;
    std::vector<double> out;
    for (uint64_t i = 0; i < *dim; i += 2) {
        double freq = 1.0 / std::pow(c.rope_theta, static_cast<double>(i) / static_cast<double>(*dim));
        double wavelen = 2 * std::numbers::pi / freq;
        if (wavelen < high_wavelen) {
            out.push_back(1.0);
        } else if (wavelen > low_wavelen) {
            out.push_back(s.factor);
        } else {
            double smooth = (s.original_context / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
            out.push_back(1.0 / ((1 - smooth) / s.factor + smooth));
        }
    }
    return out;
}

}  // namespace modelcat::format
