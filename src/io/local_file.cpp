#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "io/byte_source.hpp"

namespace modelcat::io {

namespace {
const std::string kNoSuchFile = "no such file or directory";

// "a named pipe, not a regular file": what a special file is, for its error.
std::string kind_reason(mode_t mode) {
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
}  // namespace

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

LocalFile::LocalFile(std::string path) : path_(std::move(path)) {
    // a missing file is left to open(), whose error says so
    if (auto why = not_a_regular_file(path_); why && *why != kNoSuchFile) throw IoError(path_ + ": " + *why);
    // O_NONBLOCK: a pipe or device swapped in after the check cannot hang the open
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd_ < 0) throw IoError(path_ + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        int e = errno;
        ::close(fd_);
        throw IoError(path_ + ": cannot stat: " + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd_);
        throw IoError(path_ + ": " + kind_reason(st.st_mode));
    }
    stat_ = to_file_stat(st);
}

LocalFile::~LocalFile() {
    if (fd_ >= 0) ::close(fd_);
}

void LocalFile::read(uint64_t offset, uint64_t n, ByteBuffer& out) {
    if (offset >= stat_.size) return;
    n = std::min(n, stat_.size - offset);
    size_t base = out.size();
    out.resize(base + n);
    uint64_t done = 0;
    while (done < n) {
        ssize_t r = ::pread(fd_, out.data() + base + done, n - done, static_cast<off_t>(offset + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            out.resize(base + done);
            throw IoError(path_ + ": read failed at offset " + std::to_string(offset + done) + ": " +
                          (r == 0 ? "unexpected end of file" : std::strerror(errno)));
        }
        done += static_cast<uint64_t>(r);
    }
    count(n);
}

}  // namespace modelcat::io
