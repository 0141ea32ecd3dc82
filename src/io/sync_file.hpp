#pragma once
// One file read synchronously through any RangeReader: each read is one
// request, submitted and driven to its reply, along the file's ReadRoute.
// For one-off reads (`show`, the audit's headers and tensor data, planning's
// small JSON files); the crawl submits its reads asynchronously instead.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "format/byte_buffer.hpp"
#include "format/header_assembler.hpp"
#include "io/range_reader.hpp"
#include "io/read_route.hpp"

namespace modelcat::io {

class SyncFile {
public:
    // What a failed reply means, for the IoError a read throws (default: the reply's own error).
    using Explain = std::function<std::string(const RangeReply&)>;

    // `origin`: where and how to read (see ReadRoute). `size`, when known, spares nothing but a
    // check; `first_bytes`, the file's first bytes read before, are served again without a request.
    SyncFile(RangeReader& reader, RangeRequest origin, std::optional<uint64_t> size = std::nullopt,
             std::vector<uint8_t> first_bytes = {}, Explain explain = {});

    const std::string& location() const { return route_.origin().location; }
    // The file's size: known once a read has answered (or when given).
    uint64_t size() const { return size_.value_or(0); }
    // Appends bytes [offset, offset + n) (clamped to the size) to `out`. Throws IoError when
    // the read fails or comes back short.
    void read(uint64_t offset, uint64_t n, format::ByteBuffer& out);
    // The whole (small) file: a first read of up to 64 KiB, then the rest; over `cap` is an IoError.
    format::ByteBuffer read_whole(uint64_t cap = kMaxWholeFileBytes);

    uint64_t bytes_read() const { return bytes_read_; }
    uint64_t requests() const { return requests_; }
    // The first reply's bytes (what a header read fetched first), to serve a later SyncFile of this file.
    const std::vector<uint8_t>& first_bytes() const { return first_bytes_; }
    // Where the reads went: a later SyncFile of this file may start from it.
    const ReadRoute& route() const { return route_; }
    void set_route(ReadRoute route) { route_ = std::move(route); }

private:
    RangeReply fetch(uint64_t offset, uint64_t n, format::ByteBuffer& out);

    RangeReader& reader_;
    ReadRoute route_;
    std::optional<uint64_t> size_;
    std::vector<uint8_t> first_bytes_;
    bool keep_first_ = false;
    Explain explain_;
    uint64_t bytes_read_ = 0, requests_ = 0;
};

// Drives a format::HeaderAssembler over a SyncFile: the file's header.
// Throws model::FormatError (bad header) or IoError (could not read).
model::FileHeader read_header(SyncFile& file, const format::HeaderReadOptions& options, format::ByteBuffer* scratch = nullptr);

// A small local file's text (a manifest, a report's .sql), read whole through the local
// reader's checks (a regular file, opened without blocking): IoError past `cap` bytes.
std::string read_local_text(const std::string& path, uint64_t cap = kMaxWholeFileBytes);

}  // namespace modelcat::io
