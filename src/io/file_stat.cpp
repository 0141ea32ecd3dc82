#include "io/file_stat.hpp"

#include <sys/stat.h>

namespace modelcat::io {

FileStat to_file_stat(const struct stat& st) {
    return {static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
            static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_dev)};
}

std::optional<FileStat> stat_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return to_file_stat(st);
}

}  // namespace modelcat::io
