#pragma once
// What the catalogue stores of a model's memory (tables memory_terms and memory_caches): the terms
// every figure of what llama.cpp allocates is arithmetic on, for any settings. src/memory/memory.hpp
// computes them from a header; queries/memory.sql and fits.sql and memory::memory_figures() use them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace modelcat::model {

enum class CacheKind : uint8_t { full, sliding, mla };

const char* cache_kind_name(CacheKind k);  // full | sliding | mla

// One attention cache llama.cpp creates.
struct CacheTerms {
    CacheKind kind = CacheKind::full;
    uint32_t window = 0, layers = 0;
    uint64_t k_elements = 0, v_elements = 0;  // per cell, summed over the cache's layers
    uint64_t v_padded_elements = 0;           // per cell with V transposed (flash off): layers x the widest V row of any cache
};

struct MemoryTerms {
    uint64_t ctx_train = 0, n_layer = 0;
    uint64_t weights_bytes = 0, repack_bytes = 0;  // as placed on the CPU the terms were computed for
    uint64_t layer_weight_bytes_max = 0, repeating_weight_bytes = 0, other_weight_bytes = 0;
    uint64_t recurrent_bytes = 0, output_bytes = 0;  // one sequence
    bool whole_blocks = true;  // every layer's K and V row is whole blocks of 32, as a q8_0 or q4_0 cache needs
    std::vector<CacheTerms> caches;
    // The compute buffer's terms, in bytes per token of the micro-batch (scores: per token and cell).
    uint64_t logits_per_token = 0, attention_per_token = 0, scores_per_token_cell = 0, layer_per_token = 0;
};

// 64-bit hash (hex) of the terms the context-dependent figures are arithmetic on: the trained
// context, whole_blocks, the compute terms and each cache's kind, window and elements. Models of
// equal shape (a family's quants) have equal KV cache and compute buffer at every setting.
std::string memory_shape_hash(const MemoryTerms& t);

// A model's memory_terms row: its terms, or why there are none ("not modelled for ARCH").
struct MemoryRow {
    std::optional<MemoryTerms> terms;
    std::string reason;  // when terms is empty
};

}  // namespace modelcat::model
