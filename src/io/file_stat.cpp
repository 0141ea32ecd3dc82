#include "io/file_stat.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace modelcat::io {

std::string kind_reason(unsigned mode) {
    const char* kind = S_ISFIFO(mode)  ? "a named pipe, "
                       : S_ISSOCK(mode) ? "a socket, "
                       : S_ISCHR(mode)  ? "a character device, "
                       : S_ISBLK(mode)  ? "a block device, "
                       : S_ISDIR(mode)  ? "a directory, "
                                        : "";
    return std::string(kind) + "not a regular file";
}

FileStat to_file_stat(const struct stat& st) {
    return {static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
            static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_dev)};
}

std::optional<FileStat> stat_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return to_file_stat(st);
}

std::optional<std::string> not_a_regular_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return S_ISREG(st.st_mode) ? std::nullopt : std::optional(kind_reason(st.st_mode));
    int e = errno;
    struct stat link {};
    if (e == ELOOP) return "symlink loop (too many levels of symbolic links)";
    if (e == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
        return "dangling symlink: its target does not exist";
    if (e == ENOENT) return kNoSuchFile;
    return std::string("cannot stat: ") + std::strerror(e);
}

}  // namespace modelcat::io
