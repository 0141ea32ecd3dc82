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

// Packs eight 6-bit (scale, min) pairs into Q4_K/Q5_K's 12 scale bytes (zeroed by the caller).
void pack_k4_scales(uint8_t* s, std::span<const int> sc, std::span<const int> mn);

}  // namespace modelcat::kit
