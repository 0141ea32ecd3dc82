#pragma once
// A local file opened for reading its header.
#include <string>

#include "io/byte_source.hpp"
#include "io/file_stat.hpp"

namespace modelcat::io {

// Opened so that it cannot block: checked before opening, opened with
// O_NONBLOCK, checked again with fstat; anything but a regular file is an IoError.
class LocalFile final : public ByteSource {
public:
    explicit LocalFile(std::string path);
    ~LocalFile() override;
    LocalFile(const LocalFile&) = delete;
    LocalFile& operator=(const LocalFile&) = delete;

    const std::string& location() const override { return path_; }
    uint64_t size() const override { return stat_.size; }
    const FileStat& stat() const { return stat_; }
    void read(uint64_t offset, uint64_t n, ByteBuffer& out) override;

private:
    std::string path_;
    int fd_ = -1;
    FileStat stat_;
};

}  // namespace modelcat::io
