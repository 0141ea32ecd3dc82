#pragma once
// A model in an Ollama registry, as a crawl input:
// ollama://[registry/]namespace/model:tag, registry.ollama.ai and the library
// namespace by default (ollama://llama3.1:8b). The manifest is fetched from
// /v2/{namespace}/{model}/manifests/{tag}, its blobs read by range requests
// from /v2/{namespace}/{model}/blobs/{digest}.
#include <optional>
#include <string>

namespace modelcat::locate {

struct OllamaRef {
    std::string input, registry, repo_path, tag;  // repo_path: namespace/model
};

std::optional<OllamaRef> parse_ollama_input(const std::string& input);

// https://, or http:// for a registry on the loopback interface (as Docker treats localhost).
std::string ollama_registry_base(const OllamaRef& ref);
std::string ollama_manifest_url(const OllamaRef& ref);
std::string ollama_blob_url(const OllamaRef& ref, const std::string& digest);

}  // namespace modelcat::locate
