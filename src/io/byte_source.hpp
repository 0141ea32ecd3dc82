#pragma once
// A synchronous source of a file's bytes, for reading one header at a time
// (`modelcat show`); the crawl reads through io::RangeReader instead.
#include <cstdint>
#include <string>

#include "io/byte_buffer.hpp"

namespace modelcat::io {

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

}  // namespace modelcat::io
