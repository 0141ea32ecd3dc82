// Decoders of ggml's small blocks (32, 64 and 128 elements) that are not table
// lookups (those are in dequant_groups.hpp), after ggml-common.h's block_*
// layouts and ggml-quants.c's dequantize_row_*.
#include "dequant/dequant_blocks.hpp"

namespace modelcat::dequant::dequant_blocks {

// Q4_1: d, m, nibbles as Q4_0; x = d * q + m.
void q4_1(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 20, y += 32) {
        float d = half(b), m = half(b + 2);
        for (int i = 0; i < 16; ++i) {
            y[i] = static_cast<float>(b[4 + i] & 0xF) * d + m;
            y[i + 16] = static_cast<float>(b[4 + i] >> 4) * d + m;
        }
    }
}

// Q5_0/Q5_1: the fifth bit of element i is bit i of the 32-bit qh.
void q5(const uint8_t* qh_bytes, const uint8_t* qs, float d, float* y, int offset) {
    uint32_t qh = u32(qh_bytes);
    for (int i = 0; i < 16; ++i) {
        int lo = (qs[i] & 0xF) | (((qh >> i) & 1) << 4);
        int hi = (qs[i] >> 4) | (((qh >> (i + 16)) & 1) << 4);
        y[i] = static_cast<float>(lo - offset) * d;
        y[i + 16] = static_cast<float>(hi - offset) * d;
    }
}

void q5_0(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 22, y += 32) q5(b + 2, b + 6, half(b), y, 16);
}

void q5_1(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 24, y += 32) {
        float m = half(b + 2);
        q5(b + 4, b + 8, half(b), y, 0);
        for (int i = 0; i < 32; ++i) y[i] += m;
    }
}

// Q8_0: d, 32 int8; Q8_1 adds d * sum(q) after d (a dot-product helper, not needed here).
void q8_0(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 34, y += 32) {
        float d = half(b);
        for (int i = 0; i < 32; ++i) y[i] = static_cast<float>(static_cast<int8_t>(b[2 + i])) * d;
    }
}

void q8_1(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 36, y += 32) {
        float d = half(b);
        for (int i = 0; i < 32; ++i) y[i] = static_cast<float>(static_cast<int8_t>(b[4 + i])) * d;
    }
}

// Q1_0: d, 128 sign bits (bit i%8 of byte i/8): +d when set, -d when clear.
void q1_0(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 18, y += 128) {
        float d = half(b);
        for (int i = 0; i < 128; ++i) y[i] = (b[2 + i / 8] >> (i % 8)) & 1 ? d : -d;
    }
}

// Q2_0: d, 2-bit codes (bits 2*(i%4) of byte i/4) meaning -1, 0, +1, +2.
void q2_0(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 18, y += 64) {
        float d = half(b);
        for (int i = 0; i < 64; ++i) y[i] = static_cast<float>(((b[2 + i / 4] >> (2 * (i % 4))) & 3) - 1) * d;
    }
}

}  // namespace modelcat::dequant::dequant_blocks
