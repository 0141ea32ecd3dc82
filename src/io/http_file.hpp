#pragma once
// A remote file as a ByteSource: each read is one HTTP range request (the
// first bytes, fetched once when the size is not known, serve the header).
#include <cstdint>
#include <optional>
#include <string>

#include "io/byte_source.hpp"
#include "io/http_fetcher.hpp"

namespace modelcat::io {

class HttpFile final : public ByteSource {
public:
    // Without `known_size`, reads [0, first_read) at once to learn the size
    // from Content-Range. Throws IoError when that request fails. `prefix`:
    // the file's first bytes, read before (served again without a request).
    HttpFile(std::string url, HttpOptions options, std::optional<uint64_t> known_size, std::vector<uint8_t> prefix = {},
             uint64_t first_read = 64 << 10);
    const std::vector<uint8_t>& prefix() const { return prefix_; }

    const std::string& location() const override { return url_; }
    uint64_t size() const override { return size_; }
    void read(uint64_t offset, uint64_t n, ByteBuffer& out) override;

private:
    HttpResponse fetch(uint64_t offset, uint64_t n);
    std::string url_;
    HttpFetcher fetcher_;
    uint64_t size_ = 0;
    std::vector<uint8_t> prefix_;  // the first bytes, when fetched to learn the size
};

}  // namespace modelcat::io
