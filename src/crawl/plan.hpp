#pragma once
// Groups the files to read into models: a single file, a split GGUF set
// (name-00001-of-00003.gguf ...), or a sharded safetensors checkpoint
// (model.safetensors.index.json + shards + config.json).
#include <optional>
#include <string>
#include <vector>

#include "crawl/inputs.hpp"
#include "crawl/locator.hpp"
#include "format/checkpoint.hpp"

namespace modelcat::crawl {

struct ModelPlan {
    enum class Kind { single_file, split_gguf, checkpoint };
    Kind kind = Kind::single_file;
    std::string name;
    std::vector<std::string> data_files;       // in model order; split sets list every expected shard
    std::optional<std::string> index;          // checkpoint: the index file
    std::optional<std::string> config;         // checkpoint: config.json beside it, when present
    std::optional<format::CheckpointIndex> parsed_index;
};

struct CrawlPlan {
    std::vector<ModelPlan> models;
    std::vector<InputProblem> problems;  // inputs or indexes that could not be planned
};

CrawlPlan plan_crawl(const std::vector<std::string>& files, std::vector<InputProblem> problems, const Locator& locator);

}  // namespace modelcat::crawl

namespace modelcat::crawl {

// Data files first, then the index and config.json.
std::vector<std::string> all_files(const ModelPlan& plan);

}  // namespace modelcat::crawl
