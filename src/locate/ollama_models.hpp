#pragma once
// What one Ollama manifest (a tagged model) holds, as planned models: its
// model layer with the small text layers, and its projector and adapter
// layers each a model of its own, linked by the tag's name. The same for a
// local store and a remote registry; only where a blob lives differs.
#include <functional>
#include <string>
#include <vector>

#include "format/ollama_manifest.hpp"
#include "locate/plan.hpp"
#include "model/error.hpp"

namespace modelcat::locate {

struct OllamaTag {
    std::string root;      // store_names.root: the models folder, or ollama://REGISTRY
    std::string registry;  // registry.ollama.ai, hf.co, ...
    std::string repo_path; // namespace/model
    std::string tag;
    std::string manifest;  // where the manifest was read
};

// library/llama3.1:8b for registry.ollama.ai; hf.co/owner/repo:tag elsewhere.
std::string ollama_name(const OllamaTag& t);

// Throws model::FormatError when the manifest has no model layer.
std::vector<ModelPlan> ollama_models(const std::vector<format::OllamaLayer>& layers, const OllamaTag& tag,
                                     const std::function<std::string(const format::OllamaLayer&)>& blob_location);

}  // namespace modelcat::locate
