#pragma once
// The block decoders behind format::dequantize (not for other callers): one
// function per ggml type, `blocks` whole blocks of bytes in, blocks * block_size
// floats out, computing what ggml's dequantize_row_* of that type computes, in
// the same order of float operations (no fused multiply-adds), so every
// decoder and its vectorised twin give the same bits.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dequant/block_decoder.hpp"

namespace modelcat::dequant::dequant_blocks {

inline uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t u32(const uint8_t* p) { return u16(p) | (static_cast<uint32_t>(u16(p + 2)) << 16); }
inline uint64_t u64(const uint8_t* p) { return u32(p) | (static_cast<uint64_t>(u32(p + 4)) << 32); }

// IEEE half to float without branches on the common path: normal values by
// rebiasing the exponent, subnormals by a float subtraction (exact); inf kept,
// a NaN's payload kept and made quiet (as F16C's conversion does).
inline float half_bits_to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    uint32_t bits = static_cast<uint32_t>(h & 0x7FFF) << 13;
    uint32_t exp = bits & 0x0F800000u;
    if (exp == 0x0F800000u) return std::bit_cast<float>(sign | bits | 0x70000000u | (bits & 0x007FFFFFu ? 0x00400000u : 0));
    if (exp == 0) return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(std::bit_cast<float>(bits | 0x38800000u) -
                                                                               std::bit_cast<float>(0x38800000u)));
    return std::bit_cast<float>(sign | (bits + 0x38000000u));
}
inline float half(const uint8_t* p) { return half_bits_to_float(u16(p)); }

// The decoders by type: plain C++ for every type (dequant.cpp), and AVX2 twins
// for some, nullptr for the others (dequant_avx2.cpp).
BlockDecoder plain_decoder(uint32_t ggml_type);
BlockDecoder avx2_decoder(uint32_t ggml_type);

// Q4_K/Q5_K's scale and min j of 8, packed 6 bits each in 12 bytes.
inline void k4_scale_min(const uint8_t* s, int j, int& sc, int& mn) {
    if (j < 4) {
        sc = s[j] & 63;
        mn = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
        mn = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// Q3_K's sixteen 6-bit scales: low 4 bits in bytes 0-7, high 2 bits in bytes 8-11.
inline int q3_k_scale(const uint8_t* s, int i) {
    int low = i < 8 ? (s[i] & 0xF) : (s[i - 8] >> 4);
    int high = (s[8 + (i % 4)] >> (2 * (i / 4))) & 3;
    return (low | (high << 4)) - 32;
}

// Legacy 32-element blocks and the other small-block types (dequant_blocks.cpp).
void q4_1(const uint8_t*, size_t, float*);
void q5_0(const uint8_t*, size_t, float*);
void q5_1(const uint8_t*, size_t, float*);
void q8_0(const uint8_t*, size_t, float*);
void q8_1(const uint8_t*, size_t, float*);
void q1_0(const uint8_t*, size_t, float*);
void q2_0(const uint8_t*, size_t, float*);

// 256-element super-blocks: K-quants and ternary (dequant_k.cpp).
void q2_k(const uint8_t*, size_t, float*);
void q3_k(const uint8_t*, size_t, float*);
void q4_k(const uint8_t*, size_t, float*);
void q5_k(const uint8_t*, size_t, float*);
void q6_k(const uint8_t*, size_t, float*);
void q8_k(const uint8_t*, size_t, float*);
void tq1_0(const uint8_t*, size_t, float*);
void tq2_0(const uint8_t*, size_t, float*);

// Table types: the nibble-table ones and the grid-based "i-quants" (dequant_groups.hpp, dequant_iq.cpp).
void q4_0(const uint8_t*, size_t, float*);
void iq4_nl(const uint8_t*, size_t, float*);
void mxfp4(const uint8_t*, size_t, float*);
void nvfp4(const uint8_t*, size_t, float*);
void iq1_s(const uint8_t*, size_t, float*);
void iq1_m(const uint8_t*, size_t, float*);
void iq2_xxs(const uint8_t*, size_t, float*);
void iq2_xs(const uint8_t*, size_t, float*);
void iq2_s(const uint8_t*, size_t, float*);
void iq3_xxs(const uint8_t*, size_t, float*);
void iq3_s(const uint8_t*, size_t, float*);
void iq4_xs(const uint8_t*, size_t, float*);

}  // namespace modelcat::dequant::dequant_blocks
