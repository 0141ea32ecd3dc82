#pragma once
// The audit's inner loops: error sums of GGUF values against their source's,
// over a piece of a row small enough to stay in the first-level cache, and
// the mismatches of a narrowing conversion. AVX2 where the CPU has it (with
// FMA and F16C), plain loops otherwise; both give the same verdicts.
#include <cmath>
#include <cstdint>

namespace modelcat::audit {

struct PieceSums {
    double err2 = 0, ref2 = 0, got2 = 0, dot = 0;  // sum of (got - ref)^2, ref^2, got^2, ref * got
    float max_abs = 0;                             // largest |got - ref|
    uint64_t changed = 0;                          // elements whose bits differ (both NaN: equal)
    double worst_block = 0;                        // largest block error / max(block energy, floor)
    uint64_t worst_block_at = 0;                   // its first element
    bool finite() const { return std::isfinite(err2 + got2 + ref2); }  // false: an inf or NaN on either side
};

// The source's values as stored: F32, F16 or BF16 (others decoded to F32 first),
// read in the sums themselves so that they need not be written out and read again.
struct SourceValues {
    const void* data;
    uint32_t ggml_type;
};

// Sums over n elements. block > 0: also the worst block of that many elements
// (n is whole blocks), each block's error energy over its signal energy, the
// latter counted as at least `block_floor`.
PieceSums sum_errors(SourceValues ref, const float* got, uint64_t n, uint32_t block, double block_floor);

// Elements of `got` (a GGUF F16 or BF16 tensor's values) whose bits are not
// those of `ref` rounded to that type to nearest even (both NaN: equal).
uint64_t rounding_mismatches(uint32_t gguf_type, const float* ref, const float* got, uint64_t n);

// What the narrowing to F16 or BF16 makes of one value (round to nearest even; F32: itself).
float rounded_like(uint32_t gguf_type, float v);

}  // namespace modelcat::audit
