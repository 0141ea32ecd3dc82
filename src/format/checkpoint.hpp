#pragma once
// The JSON files beside a sharded safetensors checkpoint: the index
// (model.safetensors.index.json) and config.json. Pure functions over bytes.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/header.hpp"
#include "model/limits.hpp"

namespace modelcat::format {

struct CheckpointIndex {
    std::map<std::string, std::string> weight_map;  // tensor name -> shard file name
    std::vector<std::string> shards;                 // distinct shard names, sorted
    std::optional<uint64_t> total_size;              // metadata.total_size: tensor data bytes
    std::vector<model::MetadataEntry> metadata;             // the index's "metadata" object
};

// Refuses shard names that escape the checkpoint's folder (.., absolute, URLs)
// and more shards than `max_shards`.
CheckpointIndex parse_checkpoint_index(std::span<const uint8_t> json, size_t max_shards = model::Limits::max_shards);

// Every top-level key of config.json as a metadata entry: strings, numbers and
// booleans natively, arrays and objects as JSON text.
std::vector<model::MetadataEntry> parse_model_config(std::span<const uint8_t> json);

}  // namespace modelcat::format
