#pragma once
// The decoders whose values come in groups from a table: the grid quants
// (IQ1_S ... IQ3_S: 8 values from a lattice grid, with sign bits) and the
// nibble-table types (Q4_0, IQ4_NL, IQ4_XS, MXFP4, NVFP4: 4-bit indices into
// 16 values). Each is written once, over group primitives G: plain loops
// (PlainGroups, here; dequant_iq.cpp instantiates them) or AVX2
// (dequant_avx2.cpp, which includes this under its target pragma). Layouts
// after ggml-common.h's block_* structs and ggml-quants.c's dequantize_row_*.
//
// G::signed8(m, signs, scale, y): y[j] = scale * byte j of m, negated where bit j of signs is set.
// G::shifted8(m, scale, delta, y): y[j] = scale * (int8 byte j of m + delta).
// G::nibbles(qs, bytes, table, scale, y): 2 * bytes values, table[low nibble of qs[i]] * scale at
//   y[i], table[high nibble] * scale at y[bytes + i].
// The loops over a block's groups are unrolled: their shifts then are constants.
#include <bit>
#include <iterator>

#include "dequant/dequant_blocks.hpp"
#include "dequant/dequant_tables.hpp"

namespace modelcat::dequant::dequant_blocks {

namespace {

namespace tables = dequant_tables;

static_assert(std::size(tables::kSigns) == 128 && std::size(tables::kIq2xxsGrid) == 256 &&
              std::size(tables::kIq2xsGrid) == 512 && std::size(tables::kIq2sGrid) == 1024 &&
              std::size(tables::kIq3xxsGrid) == 256 && std::size(tables::kIq3sGrid) == 512 &&
              std::size(tables::kIq1sGrid) == 2048 && std::size(tables::kIq4nlValues) == 16);

constexpr float kIq1Delta = 0.125f;                                                // IQ1S_DELTA

// +-IQ1S_DELTA, minus where `negative` is set; without a branch (random signs: half would mispredict).
float iq1_delta(bool negative) { return std::bit_cast<float>(std::bit_cast<uint32_t>(kIq1Delta) | (uint32_t{negative} << 31)); }
constexpr int8_t kQ4_0Values[16] = {-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7};  // Q4_0: q - 8

struct PlainGroups {
    static void signed8(uint64_t m, uint8_t signs, float scale, float* y) {
        for (int j = 0; j < 8; ++j) {
            float v = scale * static_cast<float>(static_cast<uint8_t>(m >> (8 * j)));
            y[j] = (signs >> j) & 1 ? -v : v;
        }
    }
    static void shifted8(uint64_t m, float scale, float delta, float* y) {
        for (int j = 0; j < 8; ++j) y[j] = scale * (static_cast<float>(static_cast<int8_t>(m >> (8 * j))) + delta);
    }
    static void nibbles(const uint8_t* qs, int bytes, const int8_t* table, float scale, float* y) {
        for (int i = 0; i < bytes; ++i) {
            y[i] = static_cast<float>(table[qs[i] & 0xF]) * scale;
            y[i + bytes] = static_cast<float>(table[qs[i] >> 4]) * scale;
        }
    }
};

// Two 4-value grid entries (IQ3) as one group of 8.
uint64_t pair(uint32_t a, uint32_t b) { return a | (static_cast<uint64_t>(b) << 32); }

// E8M0 scale halved (the FP4 table holds doubled E2M1 values): 2^(e-128), subnormal below e = 2.
float e8m0_half(uint8_t e) { return std::bit_cast<float>(e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23); }

// UE4M3 (ggml_ue4m3_to_fp32): bits 3-6 exponent (bias 7), bits 0-2 mantissa, top bit
// ignored; 0 and 0x7F read as 0; halved like e8m0_half: man * 2^-10 when the exponent is 0,
// else (1 + man / 8) * 2^(exp - 8), built as the float's bits (every value exact).
float ue4m3_half(uint8_t x) {
    if (x == 0 || x == 0x7F) return 0.0f;
    uint32_t exp = (x >> 3) & 0xF, man = x & 7;
    if (exp == 0) return static_cast<float>(man) * 0x1p-10f;
    return std::bit_cast<float>(((exp + 119) << 23) | (man << 20));
}

// Q4_0: d, 16 bytes of nibbles; element i < 16 is byte i's low nibble, i + 16 its high one.
template <class G>
void q4_0_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 18, y += 32) G::nibbles(b + 2, 16, kQ4_0Values, half(b), y);
}

// IQ4_NL: d, nibbles as Q4_0 indexing a 16-value non-linear table.
template <class G>
void iq4_nl_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 18, y += 32) G::nibbles(b + 2, 16, tables::kIq4nlValues, half(b), y);
}

// IQ4_XS: d, scales_h (2 high bits of eight 6-bit scales), scales_l[4] (their low
// nibbles), then per 32 elements 16 bytes of nibbles into IQ4_NL's table.
template <class G>
void iq4_xs_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 136) {
        float d = half(b);
        uint16_t scales_h = u16(b + 2);
        for (int ib = 0; ib < 8; ++ib, y += 32) {
            int ls = ((b[4 + ib / 2] >> (4 * (ib % 2))) & 0xF) | (((scales_h >> (2 * ib)) & 3) << 4);
            G::nibbles(b + 8 + 16 * ib, 16, tables::kIq4nlValues, d * static_cast<float>(ls - 32), y);
        }
    }
}

// MXFP4: E8M0 exponent, 16 bytes of E2M1 nibbles laid out as Q4_0's.
template <class G>
void mxfp4_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 17, y += 32) G::nibbles(b + 1, 16, tables::kFp4Values, e8m0_half(b[0]), y);
}

// NVFP4: four UE4M3 scales, then per 16-element sub-block 8 bytes of E2M1 nibbles (low half, high half).
template <class G>
void nvfp4_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 36)
        for (int s = 0; s < 4; ++s, y += 16) G::nibbles(b + 4 + 8 * s, 8, tables::kFp4Values, ue4m3_half(b[s]), y);
}

// IQ2_XXS: d, then per 32 elements two u32: four grid indices (bytes of the first),
// and in the second four 7-bit sign indices and a 4-bit scale on top.
template <class G>
void iq2_xxs_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 66) {
        float d = half(b);
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t* q = b + 2 + 8 * ib;
            uint32_t aux = u32(q + 4);
            float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.25f;
#pragma GCC unroll 4
            for (int l = 0; l < 4; ++l, y += 8)
                G::signed8(tables::kIq2xxsGrid[q[l]], tables::kSigns[(aux >> (7 * l)) & 127], db, y);
        }
    }
}

// IQ2_XS: d, 32 u16 (9-bit grid index, 7-bit sign index), eight bytes of two 4-bit scales.
template <class G>
void iq2_xs_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 74) {
        float d = half(b);
        for (int ib = 0; ib < 8; ++ib) {
            uint8_t sc = b[66 + ib];
            float db[2] = {d * (0.5f + static_cast<float>(sc & 0xF)) * 0.25f, d * (0.5f + static_cast<float>(sc >> 4)) * 0.25f};
#pragma GCC unroll 4
            for (int l = 0; l < 4; ++l, y += 8) {
                uint16_t q = u16(b + 2 + 2 * (4 * ib + l));
                G::signed8(tables::kIq2xsGrid[q & 511], tables::kSigns[q >> 9], db[l / 2], y);
            }
        }
    }
}

// IQ2_S: d, 32 grid index bytes, 32 sign bytes, qh[8] (2 high index bits per group), scales[8].
template <class G>
void iq2_s_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 82) {
        float d = half(b);
        const uint8_t *qs = b + 2, *signs = b + 34, *qh = b + 66, *scales = b + 74;
        for (int ib = 0; ib < 8; ++ib) {
            float db[2] = {d * (0.5f + static_cast<float>(scales[ib] & 0xF)) * 0.25f,
                           d * (0.5f + static_cast<float>(scales[ib] >> 4)) * 0.25f};
#pragma GCC unroll 4
            for (int l = 0; l < 4; ++l, y += 8) {
                int index = qs[4 * ib + l] | ((qh[ib] << (8 - 2 * l)) & 0x300);
                G::signed8(tables::kIq2sGrid[index], signs[4 * ib + l], db[l / 2], y);
            }
        }
    }
}

// IQ3_XXS: d, 64 grid index bytes (4 values each), then per 32 elements a u32 of
// four 7-bit sign indices and a 4-bit scale.
template <class G>
void iq3_xxs_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 98) {
        float d = half(b);
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t* q = b + 2 + 8 * ib;
            uint32_t aux = u32(b + 66 + 4 * ib);
            float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.5f;
#pragma GCC unroll 4
            for (int l = 0; l < 4; ++l, y += 8)
                G::signed8(pair(tables::kIq3xxsGrid[q[2 * l]], tables::kIq3xxsGrid[q[2 * l + 1]]),
                           tables::kSigns[(aux >> (7 * l)) & 127], db, y);
        }
    }
}

// IQ3_S: d, 64 grid index bytes, qh[8] (their ninth bits), 32 sign bytes, 4 bytes of two
// 4-bit scales (odd multipliers 1..31) each covering 64 elements.
template <class G>
void iq3_s_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 110) {
        float d = half(b);
        const uint8_t *qs = b + 2, *qh = b + 66, *signs = b + 74, *scales = b + 106;
        for (int ib = 0; ib < 8; ++ib, qs += 8, signs += 4) {
            int sc = ib % 2 ? scales[ib / 2] >> 4 : scales[ib / 2] & 0xF;
            float db = d * static_cast<float>(1 + 2 * sc);
#pragma GCC unroll 4
            for (int l = 0; l < 4; ++l, y += 8) {
                int i1 = qs[2 * l] | ((qh[ib] << (8 - 2 * l)) & 256), i2 = qs[2 * l + 1] | ((qh[ib] << (7 - 2 * l)) & 256);
                G::signed8(pair(tables::kIq3sGrid[i1], tables::kIq3sGrid[i2]), signs[l], db, y);
            }
        }
    }
}

// IQ1_S: d, 32 low index bytes, then per 32 elements a u16: four 3-bit high index
// parts, a 3-bit scale (odd multipliers) and the sign of the delta on top.
template <class G>
void iq1_s_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 50) {
        float d = half(b);
        for (int ib = 0; ib < 8; ++ib) {
            uint16_t qh = u16(b + 34 + 2 * ib);
            float dl = d * static_cast<float>(2 * ((qh >> 12) & 7) + 1);
            float delta = iq1_delta(qh & 0x8000);
#pragma GCC unroll 4
            for (int l = 0; l < 4; ++l, y += 8)
                G::shifted8(tables::kIq1sGrid[b[2 + 4 * ib + l] | (((qh >> (3 * l)) & 7) << 8)], dl, delta, y);
        }
    }
}

// IQ1_M: 32 low index bytes, qh[16] (per 8 values: 3 high index bits and the delta's
// sign), scales[8]: four u16 of 3-bit scales whose top nibbles make up the F16 d.
template <class G>
void iq1_m_with(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 56) {
        uint16_t sc[4] = {u16(b + 48), u16(b + 50), u16(b + 52), u16(b + 54)};
        float d = half_bits_to_float(static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) |
                                                           ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000)));
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t *qs = b + 4 * ib, *qh = b + 32 + 2 * ib;
            int scales = sc[ib / 2] >> (6 * (ib % 2));  // two 3-bit scales: groups 0-1, groups 2-3
            float dl[2] = {d * static_cast<float>(2 * (scales & 7) + 1), d * static_cast<float>(2 * ((scales >> 3) & 7) + 1)};
#pragma GCC unroll 4
            for (int l = 0; l < 4; ++l, y += 8) {
                uint8_t h = qh[l / 2] >> (4 * (l % 2));  // this group's nibble of qh
                G::shifted8(tables::kIq1sGrid[qs[l] | ((h & 7) << 8)], dl[l / 2], iq1_delta(h & 8), y);
            }
        }
    }
}

}  // namespace

}  // namespace modelcat::dequant::dequant_blocks
