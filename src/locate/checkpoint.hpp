#pragma once
// A sharded safetensors checkpoint's files, the one way they are found for
// the crawl and the audit alike: the index names its shards, each beside it,
// and config.json lives beside it.
#include <optional>
#include <string>
#include <vector>

#include "format/checkpoint.hpp"
#include "locate/locator.hpp"

namespace modelcat::locate {

struct CheckpointFiles {
    std::optional<std::string> index;  // none: one .safetensors (or a folder's model.safetensors) alone
    std::optional<format::CheckpointIndex> parsed_index;
    std::vector<std::string> shards;   // in the index's order
    std::string config;                // where config.json is, when there is one
};

// The checkpoint the index at `index_location` names, read through `locator`. Throws
// model::FormatError (in the index) for a bad index, or what the locator throws.
CheckpointFiles read_checkpoint_index(const std::string& index_location, const Locator& locator);

// What an audit's SOURCE names: a folder (its model.safetensors.index.json, or a local folder's
// model.safetensors when it has none), an index, or one .safetensors with config.json beside it.
CheckpointFiles locate_checkpoint(const std::string& source, const Locator& locator);

}  // namespace modelcat::locate
