#pragma once
// The stores where models live: a Hugging Face cache, an Ollama models folder,
// an LM Studio models folder. Each is planned into models named the way its
// store names them; every name becomes a store_names row, and a blob reached
// by several names (two tags, two snapshots, two stores) is one model, read once.
#include <optional>
#include <string>
#include <vector>

#include "locate/local_inputs.hpp"
#include "locate/plan.hpp"

namespace modelcat::locate {

// `hf-cache:`, `ollama:` or `lmstudio:` (the default folder, or `:PATH`), or a
// folder laid out as a store: an HF cache (or one models--owner--name folder
// in it), an Ollama models folder (manifests/ and blobs/), or LM Studio's
// models folder (…/.lmstudio/models, …/lm-studio/models).
bool is_store_input(const std::string& input);

// Where each store lives when its input names no folder (cli/settings fills these in from the
// environment): the Hugging Face cache ($HF_HUB_CACHE, else ${HF_HOME:-~/.cache/huggingface}/hub),
// Ollama's models ($OLLAMA_MODELS, else ~/.ollama/models), LM Studio's models (~/.lmstudio/models,
// else the older ~/.cache/lm-studio/models when only it exists).
struct StoreRoots {
    std::string hf_cache, ollama, lmstudio, lmstudio_older;
};

struct StorePlan {
    std::vector<ModelPlan> models;
    std::vector<model::Failure> problems;
    std::vector<std::string> roots;  // the stores' folders: names under them not found again are gone
};

StorePlan plan_stores(const std::vector<std::string>& inputs, const StoreRoots& roots);

// One store of each layout, planned (store_hf_cache.cpp, store_ollama.cpp, store_lmstudio.cpp).
StorePlan plan_hf_cache(const std::string& root);
StorePlan plan_ollama_store(const std::string& root);
StorePlan plan_lmstudio(const std::string& root);

// Plans whose first data file is one blob (the same digest, or the same path)
// become one model, the first plan's, with every plan's names and manifests.
std::vector<ModelPlan> one_model_per_blob(std::vector<ModelPlan> plans);

// Why `path` is not read as part of the store whose folder, links resolved, is `real_root`:
// it resolves outside it (a link to /etc/shadow, to a folder elsewhere). nullopt when inside,
// or when nothing is there (its read reports that).
std::optional<std::string> outside_store(const std::string& path, const std::string& real_root);

// The absolute, normalised form of a local path (symlinks not resolved).
std::string absolute_path(const std::string& path);

}  // namespace modelcat::locate
