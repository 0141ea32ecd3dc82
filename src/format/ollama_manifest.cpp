#include "format/ollama_manifest.hpp"

#include <simdjson.h>

#include "format/json_document.hpp"
#include "model/error.hpp"
#include "model/header.hpp"
#include "model/limits.hpp"

namespace modelcat::format {

namespace {

bool is_sha256_digest(std::string_view d) {
    if (!d.starts_with("sha256:") || d.size() != 7 + 64) return false;
    return d.substr(7).find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

std::vector<OllamaLayer> parse_ollama_manifest(std::span<const uint8_t> json) {
    simdjson::dom::parser parser;
    simdjson::dom::array layers;
    if (parse_json_object(parser, json, "manifest")["layers"].get_array().get(layers)) throw model::FormatError::at_json_path("layers", "manifest has no \"layers\" array");
    std::vector<OllamaLayer> out;
    size_t i = 0;
    for (auto e : layers) {
        if (i == model::Limits::max_manifest_layers)
            throw model::FormatError::at_json_path("layers", "manifest has more than " + std::to_string(model::Limits::max_manifest_layers) +
                                                                 " layers (the cap)");
        const std::string at = "layers[" + std::to_string(i++) + "]";
        std::string_view media, digest;
        OllamaLayer l;
        if (e["mediaType"].get_string().get(media))
            throw model::FormatError::at_json_path(at + ".mediaType", "layer has no string \"mediaType\"");
        if (e["digest"].get_string().get(digest) || !is_sha256_digest(digest))
            throw model::FormatError::at_json_path(at + ".digest", "layer digest is not \"sha256:\" and 64 lowercase hex digits");
        if (e["size"].get_uint64().get(l.size)) throw model::FormatError::at_json_path(at + ".size", "layer has no non-negative \"size\"");
        l.media_type = std::string(media);
        l.digest = std::string(digest);
        out.push_back(std::move(l));
    }
    return out;
}

std::string ollama_layer_kind(const std::string& media_type) {
    static constexpr std::string_view prefix = "application/vnd.ollama.image.";
    if (!media_type.starts_with(prefix)) return "";
    std::string kind = media_type.substr(prefix.size());
    for (const char* known : {"model", "projector", "adapter", "template", "system", "params", "license", "messages"})
        if (kind == known) return kind;
    return "";
}

}  // namespace modelcat::format
