#pragma once
// gguf-split's shard names: name-00001-of-00003.gguf.
#include <optional>
#include <string>

namespace modelcat::locate {

// A split GGUF shard's parts: "dir/name", 1-based number and count.
struct SplitName {
    std::string prefix;
    unsigned number = 0, count = 0;
};
std::optional<SplitName> parse_split_name(const std::string& location);
std::string split_shard_name(const std::string& prefix, unsigned number, unsigned count);

}  // namespace modelcat::locate
