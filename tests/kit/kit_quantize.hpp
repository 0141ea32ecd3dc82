#pragma once
// Simple, valid quantizers for generated conversions: Q8_0 as ggml's reference
// does it, Q4_K with plain min/max sub-block ranges (no search for the best
// scale, so slightly worse error than llama-quantize, same layout).
#include <cstdint>
#include <span>
#include <vector>

namespace modelcat::kit {

// `x` holds whole blocks (32 for Q8_0, 256 for Q4_K); the blocks are appended to `out`.
void quantize_q8_0(std::span<const float> x, std::vector<uint8_t>& out);
void quantize_q4_k(std::span<const float> x, std::vector<uint8_t>& out);

// Where a quantized type keeps its F16 scales in a block (d, and dmin or m), from
// ggml-common.h's block_* structs; empty for the types whose scales are not an F16
// field (MXFP4, NVFP4, IQ1_M, Q8_K) and for the float types.
std::vector<uint32_t> f16_scale_fields(uint32_t type);

// `blocks` blocks of a quantized type, pseudo-random bits (valid: every bit pattern
// decodes) with finite scales (F16 fields 2^-8..2^-6, MXFP4's exponent and IQ1_M's
// scattered scale alike). For timing decoders: not the values of any source.
void random_blocks(uint32_t type, uint64_t blocks, uint64_t seed, std::vector<uint8_t>& out);

// Packs eight 6-bit (scale, min) pairs into Q4_K/Q5_K's 12 scale bytes (zeroed by the caller).
void pack_k4_scales(uint8_t* s, std::span<const int> sc, std::span<const int> mn);

}  // namespace modelcat::kit
