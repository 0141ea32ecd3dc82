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

inline constexpr const char* kNoSuchFile = "no such file or directory";
// "a named pipe, not a regular file": what a special file is (st_mode), for its error.
std::string kind_reason(unsigned mode);

// nullopt when the path does not name a readable regular file.
std::optional<FileStat> stat_file(const std::string& path);

// Why `path` cannot be read as a model file (a named pipe, socket, device or
// directory; a dangling symlink; a symlink loop; no such file), or nullopt
// for a regular file. Symlinks to regular files are followed.
std::optional<std::string> not_a_regular_file(const std::string& path);

}  // namespace modelcat::io
