#include "locate/split_name.hpp"

#include <cstdio>

#include "model/error.hpp"
#include "model/limits.hpp"

namespace modelcat::locate {

std::optional<SplitName> parse_split_name(const std::string& location) {
    // name-00001-of-00003.gguf
    constexpr std::string_view kExt = ".gguf";
    if (!location.ends_with(kExt) || location.size() < kExt.size() + 16) return std::nullopt;
    std::string_view core(location.data(), location.size() - kExt.size());
    std::string_view tail = core.substr(core.size() - 15);  // -00001-of-00003
    unsigned n = 0, c = 0;
    char dash1, dash2;
    int used = 0;
    if (std::sscanf(std::string(tail).c_str(), "%c%5u-of%c%5u%n", &dash1, &n, &dash2, &c, &used) != 4 || used != 15 ||
        dash1 != '-' || dash2 != '-' || n == 0 || c == 0 || n > c)
        return std::nullopt;
    for (size_t i : {1, 2, 3, 4, 5, 10, 11, 12, 13, 14})
        if (tail[i] < '0' || tail[i] > '9') return std::nullopt;
    return SplitName{std::string(core.substr(0, core.size() - 15)), n, c};
}

std::string split_shard_name(const std::string& prefix, unsigned number, unsigned count) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "-%05u-of-%05u.gguf", number, count);
    return prefix + buf;
}

std::vector<std::string> split_set_files(const std::string& location) {
    auto split = parse_split_name(location);
    if (!split) return {location};
    if (split->count > model::Limits::max_shards)
        throw model::FormatError("the name promises " + std::to_string(split->count) + " shards, more than the cap of " +
                                 std::to_string(model::Limits::max_shards)).in(location);
    std::vector<std::string> files;
    for (unsigned i = 1; i <= split->count; ++i) files.push_back(split_shard_name(split->prefix, i, split->count));
    return files;
}

}  // namespace modelcat::locate
