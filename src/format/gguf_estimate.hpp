#pragma once
// How long a GGUF header will be, guessed from a prefix the parser ran out
// of: sized so that one more read usually covers a Llama 3 class header.
#include <cstdint>
#include <string>
#include <vector>

#include "model/header.hpp"

namespace modelcat::format {

// Where the parser stood when it ran out of bytes: the estimator's input.
struct GgufProgress {
    uint64_t kv_count = 0, kv_done = 0;
    uint64_t tensor_count = 0, tensors_done = 0;
    std::string key;  // the metadata key being read
    // the outermost array being read, if any
    bool in_array = false;
    uint64_t array_start = 0, array_length = 0, array_done = 0;
    // where the array stood at its last power-of-two element: sorted vocabularies
    // (merges by rank, tokens by id) grow longer, so the recent average predicts better
    uint64_t mark_done = 0, mark_pos = 0;
};

// The whole header's estimated length, from what was parsed so far: the
// likely end of what is known (the current array at its measured entry size,
// then small entries), and a generous guess that also predicts the tokenizer
// arrays not reached yet, with a margin and slack.
struct HeaderEstimate {
    uint64_t likely, generous;
};
HeaderEstimate estimate_gguf_header(const GgufProgress& p, const std::vector<model::MetadataEntry>& seen, uint64_t pos,
                                    uint64_t needed_end);

}  // namespace modelcat::format
