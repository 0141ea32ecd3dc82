#pragma once
// What a stat() says about a local file: enough to tell it changed.
#include <cstdint>
#include <optional>
#include <string>

struct stat;

namespace modelcat::io {

struct FileStat {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0, device = 0;
    bool operator==(const FileStat&) const = default;
};

FileStat to_file_stat(const struct stat& st);

// nullopt when the path does not name a readable regular file.
std::optional<FileStat> stat_file(const std::string& path);

}  // namespace modelcat::io
