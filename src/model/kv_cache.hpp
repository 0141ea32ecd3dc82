#pragma once
// How much memory a model's KV cache takes per 1,024 tokens of context at F16:
// an estimate of the largest term after the weights, from the header's
// attention hyperparameters, not a promise about any runtime.
#include <cstdint>
#include <optional>

#include "model/header.hpp"

namespace modelcat::model {

struct KvCacheEstimate {
    uint64_t full_bytes_per_1k = 0;  // layers that attend over the whole context
    uint64_t swa_bytes_per_1k = 0;   // sliding-window layers, while the context fits in the window
    uint64_t swa_layers = 0;
    std::optional<uint64_t> sliding_window;  // <arch>.attention.sliding_window, in tokens
};

// Per layer l: head_count_kv(l) x (key_length + value_length) x 2 bytes x 1,024,
// with head_count_kv defaulting to head_count and the lengths to
// embedding_length / head_count (as llama.cpp reads them); per-layer arrays are
// honoured when the catalogue keeps their values (<= 64 elements). Sliding-window
// layers come from attention.sliding_window_pattern (an int period, the last layer
// of each period dense, or a per-layer bool array); without a pattern every layer
// counts as full, which never underestimates. nullopt without block_count or heads.
std::optional<KvCacheEstimate> estimate_kv_cache(const FileHeader& h);

}  // namespace modelcat::model
