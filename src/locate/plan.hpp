#pragma once
// Groups the files to read into models: a single file, a split GGUF set
// (name-00001-of-00003.gguf ...), or a sharded safetensors checkpoint
// (model.safetensors.index.json + shards + config.json).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "format/checkpoint.hpp"
#include "locate/local_inputs.hpp"
#include "locate/locator.hpp"
#include "model/rows.hpp"

namespace modelcat::locate {

// A small text layer of an Ollama tag (template, system prompt, params,
// license, messages): read with its manifest, stored as `ollama.<kind>`.
struct TextLayer {
    std::string location;
    std::string kind;  // template | system | params | license | messages
};

// An Ollama manifest: a side file of the model its model layer names, whose
// metadata is its layers (`ollama.layers`) and the text of its text layers.
// Tags that share a model blob are each a manifest of that one model.
struct PlannedManifest {
    std::string location;
    std::vector<TextLayer> layers;
    std::string layers_json;  // [{"mediaType": ..., "digest": ..., "size": ...}, ...] as the manifest lists them
};

struct ModelPlan {
    enum class Kind { single_file, split_gguf, checkpoint };
    Kind kind = Kind::single_file;
    std::string name;
    std::vector<std::string> data_files;       // in model order; split sets list every expected shard
    std::optional<std::string> index;          // checkpoint: the index file
    std::optional<std::string> config;         // checkpoint: config.json beside it, when present
    std::optional<format::CheckpointIndex> parsed_index;
    std::vector<PlannedManifest> manifests;       // Ollama: the tags whose model layer this is
    // Stores: every name the store gives this model, and the digest that names
    // each blob file (trusted by name as its identity; nothing is hashed).
    std::vector<model::StoreNameRow> names;
    std::map<std::string, std::string> digests;
};

struct CrawlPlan {
    std::vector<ModelPlan> models;
    std::vector<model::Failure> problems;  // inputs or indexes that could not be planned
};

CrawlPlan plan_crawl(const std::vector<std::string>& files, std::vector<model::Failure> problems, const Locator& locator);

}  // namespace modelcat::locate

namespace modelcat::locate {

// The path a model is known by: its file, a split set's stem (without
// -00001-of-0000N.gguf), a checkpoint's folder.
std::string model_path(const ModelPlan& plan);

// Data files first, then the index, config.json and manifests.
std::vector<std::string> all_files(const ModelPlan& plan);

}  // namespace modelcat::locate
