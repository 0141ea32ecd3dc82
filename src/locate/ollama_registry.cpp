#include "locate/ollama_registry.hpp"

#include <algorithm>
#include <vector>

#include "model/utf8.hpp"

namespace modelcat::locate {

namespace {

constexpr std::string_view kScheme = "ollama://";

// Docker's rule: a first component with a dot or a port, or localhost, is a registry.
bool names_a_registry(const std::string& part) {
    return part.find('.') != std::string::npos || part.find(':') != std::string::npos || part == "localhost";
}

bool plain_component(const std::string& s) {
    return !s.empty() && s != "." && s != ".." && s.find_first_of("?#%\\ ") == std::string::npos &&
           !model::first_invalid_utf8(s);
}

}  // namespace

std::optional<OllamaRef> parse_ollama_input(const std::string& input) {
    if (!input.starts_with(kScheme)) return std::nullopt;
    std::vector<std::string> parts;
    std::string rest = input.substr(kScheme.size());
    for (size_t start = 0; start <= rest.size();) {
        size_t end = std::min(rest.find('/', start), rest.size());
        parts.push_back(rest.substr(start, end - start));
        start = end + 1;
    }
    OllamaRef ref{input, "registry.ollama.ai", "", "latest"};
    if (parts.size() > 1 && names_a_registry(parts.front())) {
        ref.registry = parts.front();
        parts.erase(parts.begin());
    }
    if (parts.size() == 1) parts.insert(parts.begin(), "library");
    if (parts.size() != 2) return std::nullopt;
    if (size_t colon = parts[1].rfind(':'); colon != std::string::npos) {
        ref.tag = parts[1].substr(colon + 1);
        parts[1].resize(colon);
    }
    if (!std::all_of(parts.begin(), parts.end(), plain_component) || !plain_component(ref.tag) ||
        !plain_component(ref.registry))
        return std::nullopt;
    ref.repo_path = parts[0] + "/" + parts[1];
    return ref;
}

std::string ollama_registry_base(const OllamaRef& ref) {
    const std::string host = ref.registry.substr(0, ref.registry.rfind(':') == std::string::npos ? ref.registry.size()
                                                                                                  : ref.registry.rfind(':'));
    const bool loopback = host == "localhost" || host.starts_with("127.") || host == "[::1]";
    return (loopback ? "http://" : "https://") + ref.registry;
}

std::string ollama_manifest_url(const OllamaRef& ref) {
    return ollama_registry_base(ref) + "/v2/" + ref.repo_path + "/manifests/" + ref.tag;
}

std::string ollama_blob_url(const OllamaRef& ref, const std::string& digest) {
    return ollama_registry_base(ref) + "/v2/" + ref.repo_path + "/blobs/" + digest;
}

}  // namespace modelcat::locate
