// Decoders of ggml's 256-element super-blocks: the K-quants (sub-block scales
// and mins under one or two F16 scales) and the ternary types, after
// ggml-common.h's block_* layouts and ggml-quants.c's dequantize_row_*.
#include "dequant/dequant_blocks.hpp"

namespace modelcat::dequant::dequant_blocks {

// Q2_K: scales[16] (low nibble scale, high nibble min), qs[64], d, dmin.
void q2_k(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 84) {
        const uint8_t* q = b + 16;
        float d = half(b + 80), dmin = half(b + 82);
        int is = 0;
        for (int half_block = 0; half_block < 2; ++half_block, q += 32)
            for (int shift = 0; shift < 8; shift += 2)
                for (int part = 0; part < 2; ++part, ++is) {
                    float dl = d * static_cast<float>(b[is] & 0xF), ml = dmin * static_cast<float>(b[is] >> 4);
                    for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>((q[16 * part + l] >> shift) & 3) - ml;
                }
    }
}

// Q3_K: hmask[32] (third bit, set = no -4), qs[64] (2 low bits), scales[12], d.
void q3_k(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 110) {
        const uint8_t* hm = b;
        const uint8_t* q = b + 32;
        float d = half(b + 108);
        int is = 0;
        uint8_t m = 1;
        for (int half_block = 0; half_block < 2; ++half_block, q += 32)
            for (int shift = 0; shift < 8; shift += 2, m <<= 1)
                for (int part = 0; part < 2; ++part, ++is) {
                    float dl = d * static_cast<float>(q3_k_scale(b + 96, is));
                    for (int l = 16 * part; l < 16 * part + 16; ++l)
                        *y++ = dl * static_cast<float>(((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
                }
    }
}

// Q4_K: d, dmin, scales[12], qs[128]; Q5_K adds qh[32] before qs (fifth bits).
void q45_k(const uint8_t* b, const uint8_t* qh, const uint8_t* ql, float* y) {
    float d = half(b), dmin = half(b + 2);
    for (int j = 0; j < 4; ++j, ql += 32) {
        for (int nib = 0; nib < 2; ++nib) {
            int sc, mn;
            k4_scale_min(b + 4, 2 * j + nib, sc, mn);
            float dl = d * static_cast<float>(sc), ml = dmin * static_cast<float>(mn);
            int bit = 2 * j + nib;
            for (int l = 0; l < 32; ++l) {
                int v = nib ? (ql[l] >> 4) : (ql[l] & 0xF);
                if (qh && ((qh[l] >> bit) & 1)) v += 16;
                *y++ = dl * static_cast<float>(v) - ml;
            }
        }
    }
}

void q4_k(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 144, y += 256) q45_k(b, nullptr, b + 16, y);
}

void q5_k(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 176, y += 256) q45_k(b, b + 16, b + 48, y);
}

// Q6_K: ql[128] (4 low bits), qh[64] (2 high bits), int8 scales[16], d.
void q6_k(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 210) {
        const uint8_t* ql = b;
        const uint8_t* qh = b + 128;
        const uint8_t* sc = b + 192;
        float d = half(b + 208);
        for (int h = 0; h < 2; ++h, y += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; ++l) {
                int is = l / 16;
                int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                auto scale = [&](int s) { return d * static_cast<float>(static_cast<int8_t>(sc[s])); };
                y[l] = scale(is) * static_cast<float>(q1);
                y[l + 32] = scale(is + 2) * static_cast<float>(q2);
                y[l + 64] = scale(is + 4) * static_cast<float>(q3);
                y[l + 96] = scale(is + 6) * static_cast<float>(q4);
            }
        }
    }
}

// Q8_K: an F32 scale, 256 int8, sixteen int16 block sums (for dot products, not values).
void q8_k(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 292, y += 256) {
        float d = std::bit_cast<float>(u32(b));
        for (int i = 0; i < 256; ++i) y[i] = d * static_cast<float>(static_cast<int8_t>(b[4 + i]));
    }
}

// A base-3 digit of a TQ1_0 byte: the byte is a fixed-point fraction of 3^5 (or 3^4)
// steps, so multiplying by 3^n (mod 256) brings digit n to the top and * 3 >> 8 reads it.
float trit(uint8_t q, int n, float d) {
    static constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};
    uint8_t shifted = static_cast<uint8_t>(q * kPow3[n]);
    return static_cast<float>(((shifted * 3) >> 8) - 1) * d;
}

// TQ1_0: qs[48] (five trits a byte: bytes 0-31 then 32-47), qh[4] (four trits a byte), d.
void tq1_0(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 54) {
        float d = half(b + 52);
        for (int t = 0; t < 5; ++t)
            for (int m = 0; m < 32; ++m) *y++ = trit(b[m], t, d);
        for (int t = 0; t < 5; ++t)
            for (int m = 32; m < 48; ++m) *y++ = trit(b[m], t, d);
        for (int t = 0; t < 4; ++t)
            for (int m = 48; m < 52; ++m) *y++ = trit(b[m], t, d);
    }
}

// TQ2_0: qs[64] of 2-bit codes (bits 2l of byte 32j + m is element 128j + 32l + m) meaning -1, 0, +1; d.
void tq2_0(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 66) {
        float d = half(b + 64);
        for (int j = 0; j < 64; j += 32)
            for (int l = 0; l < 4; ++l)
                for (int m = 0; m < 32; ++m) *y++ = static_cast<float>(((b[j + m] >> (2 * l)) & 3) - 1) * d;
    }
}

}  // namespace modelcat::dequant::dequant_blocks
