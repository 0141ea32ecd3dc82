#include "locate/ollama_models.hpp"

#include "format/json_text.hpp"
#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::locate {

namespace {

constexpr std::string_view kDefaultRegistry = "registry.ollama.ai";

std::string hex_of(const std::string& digest) { return digest.substr(digest.find(':') + 1); }

// A GGUF layer (model, projector, adapter) as a model of its own.
ModelPlan layer_model(const format::OllamaLayer& layer, const std::string& role, const OllamaTag& tag,
                      const std::string& location) {
    ModelPlan m;
    m.name = ollama_name(tag) + (role == "model" ? "" : "#" + role);
    m.data_files = {location};
    m.digests[location] = hex_of(layer.digest);
    model::StoreNameRow n;
    n.store = "ollama";
    n.root = tag.root;
    n.name = ollama_name(tag);
    n.role = role;
    n.repo = (tag.registry == kDefaultRegistry ? "" : tag.registry + "/") + tag.repo_path;
    n.revision = tag.tag;
    n.digest = layer.digest;
    n.path = tag.manifest;
    n.location = location;
    m.names.push_back(std::move(n));
    return m;
}

}  // namespace

std::string ollama_name(const OllamaTag& t) {
    return (t.registry == kDefaultRegistry ? "" : t.registry + "/") + t.repo_path + ":" + t.tag;
}

std::vector<ModelPlan> ollama_models(const std::vector<format::OllamaLayer>& layers, const OllamaTag& tag,
                                     const std::function<std::string(const format::OllamaLayer&)>& blob_location) {
    std::vector<ModelPlan> out;
    PlannedManifest manifest{tag.manifest, {}, "["};
    for (const auto& l : layers) {
        const std::string kind = format::ollama_layer_kind(l.media_type);
        const std::string location = blob_location(l);
        if (kind == "model" || kind == "projector" || kind == "adapter") {
            out.push_back(layer_model(l, kind, tag, location));
            if (kind == "model") std::swap(out.front(), out.back());  // the model first: the manifest joins it
        } else if (!kind.empty()) {
            manifest.layers.push_back({location, kind});
        }
        if (manifest.layers_json.size() > 1) manifest.layers_json += ',';
        manifest.layers_json += "{\"mediaType\":";
        format::append_json_string(manifest.layers_json, l.media_type);
        manifest.layers_json += ",\"digest\":\"" + l.digest + "\",\"size\":" + std::to_string(l.size) + "}";
    }
    if (out.empty() || out.front().names.front().role != "model")
        throw model::FormatError::at_json_path("layers", "manifest has no application/vnd.ollama.image.model layer");
    manifest.layers_json += ']';
    out.front().manifests.push_back(std::move(manifest));
    return out;
}

}  // namespace modelcat::locate
