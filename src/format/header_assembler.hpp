#pragma once
// Reads just enough of a file to parse its header: one first read, then reads
// sized by the parser's own estimate of the whole header. HeaderAssembler is
// that loop as a state machine, fed bytes and answering the next range, so
// local reads, asynchronous HTTP range requests and io::SyncFile drive the
// same code. Pure: it reads nothing itself.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/byte_buffer.hpp"
#include "format/parse_result.hpp"
#include "model/error.hpp"
#include "model/header.hpp"
#include "model/limits.hpp"

namespace modelcat::format {

struct HeaderReadOptions {
    uint64_t first_read = 64 << 10;  // local reads are cheap: start small, then read what the parser estimates
    bool read_generously = false;    // aim past the likely header end (each read costs a request), or at it
    model::Limits limits;
};

struct ByteRange {
    uint64_t offset = 0, length = 0;
};

class HeaderAssembler {
public:
    // `scratch`, when given, holds the bytes instead of a buffer of its own,
    // so a crawl reuses one allocation for every file.
    HeaderAssembler(std::string location, HeaderReadOptions options, ByteBuffer* scratch = nullptr)
        : location_(std::move(location)), options_(std::move(options)), buf_(scratch ? *scratch : own_) {
        buf_.clear();
    }
    HeaderAssembler(const HeaderAssembler&) = delete;  // buf_ may refer to own_
    HeaderAssembler& operator=(const HeaderAssembler&) = delete;

    ByteRange first_read() const { return {0, options_.first_read}; }
    // Appends bytes that start where the previous ones ended; `file_size` is
    // the whole file's. Returns the next range to read, or nullopt when the
    // header is complete. Throws model::FormatError for a bad header.
    std::optional<ByteRange> add(std::span<const uint8_t> bytes, uint64_t file_size);
    // The same, taking the reply's buffer instead of copying it when it is the first.
    std::optional<ByteRange> add(ByteBuffer&& bytes, uint64_t file_size);
    // The same, for bytes a reader appended to buffer() itself (no copy).
    std::optional<ByteRange> parse(uint64_t file_size);
    ByteBuffer& buffer() { return buf_; }
    // The parsed header, once add() returned nullopt.
    model::FileHeader take() { return std::move(*header_); }

private:
    using Parser = ParseResult (*)(std::span<const uint8_t>, uint64_t, const model::Limits&);
    void make_room(uint64_t bytes);
    std::string location_;
    HeaderReadOptions options_;
    ByteBuffer own_;
    ByteBuffer& buf_;
    Parser parse_ = nullptr;
    uint32_t shortfalls_ = 0;  // parses that asked for more bytes
    std::optional<model::FileHeader> header_;
};

}  // namespace modelcat::format
