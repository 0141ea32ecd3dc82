#pragma once
// How long a GGUF header will be, judged from a prefix the parser ran out of:
// from the counts, array sizes and entry lengths seen so far, not from ratios
// fitted to one tokenizer.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/header.hpp"

namespace modelcat::format {

// Where the parser stood when it ran out of bytes: the estimator's input.
struct GgufProgress {
    uint64_t kv_count = 0, kv_done = 0;
    uint64_t tensor_count = 0, tensors_done = 0;
    uint64_t tensors_start = 0;  // where the tensor infos begin, once reached
    std::string key;  // the metadata key being read
    // the outermost array being read, if any
    bool in_array = false;
    uint64_t array_start = 0, array_length = 0, array_done = 0;
    // mark_pos[k]: where element 2^k began (k >= 6; valid while 2^k <= array_done). The mean entry
    // of each doubling shows how entries grow: sorted vocabularies (tokens by id, merges by rank) grow longer
    std::array<uint64_t, 64> mark_pos{};
    // the token list, once read whole: its entries' lengths by rank, which a BPE's merges spell
    struct Profile {
        bool known = false;
        uint64_t length = 0, start = 0, end = 0;
        std::array<uint64_t, 64> mark_pos{};
    } tokens;
};

// The whole header's estimated length, from what was parsed so far.
// likely: the likely end of what is known (the current array at its measured entry
//   size, then small entries), for a reader to which a top-up costs little (local files).
// generous: the next read's end for a reader to which each read costs a request. When a
//   BPE vocabulary's merges are not reached yet (their count is unknown), the bytes surely
//   before their end, so that the next read sees them; otherwise the end of everything
//   measured or counted so far, entry lengths extrapolated from their growth, with a margin.
struct HeaderEstimate {
    uint64_t likely, generous;
};
HeaderEstimate estimate_gguf_header(const GgufProgress& p, const std::vector<model::MetadataEntry>& seen, uint64_t pos,
                                    uint64_t needed_end);

}  // namespace modelcat::format
