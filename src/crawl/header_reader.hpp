#pragma once
// Reads just enough of a byte source to parse its header: one first read,
// then reads sized by the parser's own estimate of the whole header.
#include <cstdint>

#include "format/header.hpp"
#include "io/byte_source.hpp"

namespace modelcat::crawl {

struct HeaderReadOptions {
    uint64_t first_read = 64 << 10;  // local reads are cheap: start small, then read what the parser estimates
    format::Limits limits;
};

// Throws format::FormatError (bad header) or io::IoError (could not read).
format::FileHeader read_header(io::ByteSource& source, const HeaderReadOptions& options);

}  // namespace modelcat::crawl
