#pragma once
// Where header bytes come from: a local file now, HTTP ranges later. The
// parsers never see this; the crawler reads prefixes and hands them over.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace modelcat::io {

// An I/O failure (not a format problem): missing file, permission, network.
class IoError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Grows without zero-filling: every byte appended is overwritten by a read
// at once, and zeroing 8 MB headers was a tenth of a local crawl's time.
template <typename T>
struct UninitAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitAllocator<U>;
    };
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using ByteBuffer = std::vector<uint8_t, UninitAllocator<uint8_t>>;

class ByteSource {
public:
    virtual ~ByteSource() = default;
    virtual const std::string& location() const = 0;
    virtual uint64_t size() const = 0;
    // Appends bytes [offset, offset + n) (clamped to the size) to `out`.
    virtual void read(uint64_t offset, uint64_t n, ByteBuffer& out) = 0;

    uint64_t bytes_read() const { return bytes_read_; }
    uint64_t requests() const { return requests_; }

protected:
    void count(uint64_t bytes) {
        bytes_read_ += bytes;
        ++requests_;
    }

private:
    uint64_t bytes_read_ = 0;
    uint64_t requests_ = 0;
};

// What a stat() says about a local file: enough to tell it changed.
struct FileStat {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0, device = 0;
};

// nullopt when the path does not name a readable regular file.
std::optional<FileStat> stat_file(const std::string& path);

// Why `path` cannot be read as a model file (a named pipe, socket, device or
// directory; a dangling symlink; a symlink loop; no such file), or nullopt
// for a regular file. Symlinks to regular files are followed.
std::optional<std::string> not_a_regular_file(const std::string& path);

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
