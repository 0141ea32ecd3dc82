#pragma once
// An Ollama manifest (Docker image manifest v2): the layers of one tagged
// model, each a blob named by its digest, with a media type saying what it is.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace modelcat::format {

struct OllamaLayer {
    std::string media_type;  // application/vnd.ollama.image.model, .projector, .adapter, .template, ...
    std::string digest;      // sha256:<64 hex>
    uint64_t size = 0;
};

// The "layers" array of a manifest (the config blob is not a layer). Throws
// FormatError with the JSON path of what is wrong; a digest must be
// "sha256:" and 64 lowercase hex digits, so that it names a blob file safely.
std::vector<OllamaLayer> parse_ollama_manifest(std::span<const uint8_t> json);

// "application/vnd.ollama.image.template" -> "template"; "" for other media types.
std::string ollama_layer_kind(const std::string& media_type);

}  // namespace modelcat::format
