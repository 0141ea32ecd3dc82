#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "io/io_error.hpp"
#include "io/local_file.hpp"

namespace modelcat::io {

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
