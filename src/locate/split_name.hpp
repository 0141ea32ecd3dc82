#pragma once
// gguf-split's shard names: name-00001-of-00003.gguf.
#include <optional>
#include <string>
#include <vector>

namespace modelcat::locate {

// A split GGUF shard's parts: "dir/name", 1-based number and count.
struct SplitName {
    std::string prefix;
    unsigned number = 0, count = 0;
};
std::optional<SplitName> parse_split_name(const std::string& location);
std::string split_shard_name(const std::string& prefix, unsigned number, unsigned count);
// Every file of the split set `location` names a shard of, in order; {location} for any other name.
// A name promising more than model::Limits::max_shards is a FormatError: each shard would cost a request.
std::vector<std::string> split_set_files(const std::string& location);

}  // namespace modelcat::locate
