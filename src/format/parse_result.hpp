#pragma once
// What a header parser answers for a prefix of a file: the whole header, or
// how many more bytes it needs.
#include <cstdint>
#include <variant>

#include "model/header.hpp"

namespace modelcat::format {

// A parser that ran out of bytes in a prefix of the file asks for more.
struct NeedMore {
    uint64_t min_bytes;        // the prefix must be at least this long to progress
    uint64_t estimated_total;  // where a read that costs a request should end: the header's end with a margin, or, while a
                               // vocabulary's merges are unseen, as far as surely lies before their end (gguf_estimate.hpp)
    uint64_t likely_total = 0; // the central guess, for readers to whom another small read costs little (0: use estimated_total)
};

using ParseResult = std::variant<model::FileHeader, NeedMore>;

}  // namespace modelcat::format
