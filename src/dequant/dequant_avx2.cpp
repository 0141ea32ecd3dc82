// AVX2 twins of the block decoders: the source's BF16 and F16, Q8_0 and Q4_K by
// hand, and the table types (dequant_groups.hpp) over AVX2 group primitives.
// Same float operations in the same order as the plain decoders (a multiply,
// then an add or subtract; never fused), so the same bits. Compiled for AVX2 +
// FMA + F16C by attribute and pragma, used only when the CPU has them.
#include <immintrin.h>

#include "dequant/dequant_blocks.hpp"
#include "model/ggml_types.hpp"

#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#include "dequant/dequant_groups.hpp"

namespace modelcat::dequant::dequant_blocks {

namespace {

#define MODELCAT_AVX2 __attribute__((target("avx2,fma,f16c")))

struct Avx2Groups {
    static void signed8(uint64_t m, uint8_t signs, float scale, float* y) {
        const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        __m256i g = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(m)));
        __m256 v = _mm256_mul_ps(_mm256_set1_ps(scale), _mm256_cvtepi32_ps(g));
        __m256i neg = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(signs), bit), bit);
        _mm256_storeu_ps(y, _mm256_xor_ps(v, _mm256_castsi256_ps(_mm256_slli_epi32(neg, 31))));
    }
    static void shifted8(uint64_t m, float scale, float delta, float* y) {
        __m256 g = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(static_cast<long long>(m))));
        _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_set1_ps(scale), _mm256_add_ps(g, _mm256_set1_ps(delta))));
    }
    // Eight table values (int8, the low half of v) times the scale.
    static void store8(__m128i v, __m256 scale, float* y) {
        _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)), scale));
    }
    static void nibbles(const uint8_t* qs, int bytes, const int8_t* table, float scale, float* y) {
        const __m128i low4 = _mm_set1_epi8(0xF), t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(table));
        __m128i q = bytes == 16 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs)) : _mm_loadl_epi64(reinterpret_cast<const __m128i*>(qs));
        __m128i lo = _mm_shuffle_epi8(t, _mm_and_si128(q, low4)), hi = _mm_shuffle_epi8(t, _mm_and_si128(_mm_srli_epi16(q, 4), low4));
        __m256 s = _mm256_set1_ps(scale);
        store8(lo, s, y), store8(hi, s, y + bytes);
        if (bytes == 16) store8(_mm_unpackhi_epi64(lo, lo), s, y + 8), store8(_mm_unpackhi_epi64(hi, hi), s, y + 24);
    }
};

MODELCAT_AVX2 void bf16_avx2(const uint8_t* b, size_t n, float* y) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * i)));
        _mm256_storeu_ps(y + i, _mm256_castsi256_ps(_mm256_slli_epi32(h, 16)));
    }
    for (; i < n; ++i) y[i] = std::bit_cast<float>(static_cast<uint32_t>(u16(b + 2 * i)) << 16);
}

// F16C converts every half exactly, subnormals, infinities and NaNs included.
MODELCAT_AVX2 void f16_avx2(const uint8_t* b, size_t n, float* y) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * i))));
    for (; i < n; ++i) y[i] = half(b + 2 * i);
}

MODELCAT_AVX2 void q8_0_avx2(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 34, y += 32) {
        __m256 d = _mm256_set1_ps(half(b));
        for (int i = 0; i < 32; i += 8) {
            __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + 2 + i)));
            _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_cvtepi32_ps(q), d));
        }
    }
}

// Q4_K: per 64 elements 32 bytes, low nibbles the first 32 (scale 2j), high nibbles the next (2j + 1).
MODELCAT_AVX2 void q4_k_avx2(const uint8_t* b, size_t n, float* y) {
    const __m256i low4 = _mm256_set1_epi32(0xF);
    for (size_t k = 0; k < n; ++k, b += 144) {
        float d = half(b), dmin = half(b + 2);
        const uint8_t* ql = b + 16;
        for (int j = 0; j < 4; ++j, ql += 32, y += 64) {
            int sc0, mn0, sc1, mn1;
            k4_scale_min(b + 4, 2 * j, sc0, mn0);
            k4_scale_min(b + 4, 2 * j + 1, sc1, mn1);
            __m256 d0 = _mm256_set1_ps(d * static_cast<float>(sc0)), m0 = _mm256_set1_ps(dmin * static_cast<float>(mn0));
            __m256 d1 = _mm256_set1_ps(d * static_cast<float>(sc1)), m1 = _mm256_set1_ps(dmin * static_cast<float>(mn1));
            for (int l = 0; l < 32; l += 8) {
                __m256i q = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(ql + l)));
                __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(q, low4)), hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(q, 4));
                _mm256_storeu_ps(y + l, _mm256_sub_ps(_mm256_mul_ps(d0, lo), m0));
                _mm256_storeu_ps(y + 32 + l, _mm256_sub_ps(_mm256_mul_ps(d1, hi), m1));
            }
        }
    }
}

// Sixteen int8 codes c (a lane of 128 bits) to scale * c + offset: the plain decoders'
// dl * q - ml, with offset = -ml (a - b is a + -b exactly), and dl * q with offset -0
// (the one addend that keeps every value, -0 included).
void affine16(__m128i codes, float scale, float offset, float* y) {
    __m256 s = _mm256_set1_ps(scale), o = _mm256_set1_ps(offset);
    __m256 a = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(codes)), b = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_unpackhi_epi64(codes, codes)));
    _mm256_storeu_ps(y, _mm256_add_ps(_mm256_mul_ps(s, a), o));
    _mm256_storeu_ps(y + 8, _mm256_add_ps(_mm256_mul_ps(s, b), o));
}

// Thirty-two codes, the first 16 under (s0, o0), the next under (s1, o1).
void affine32(__m256i codes, float s0, float o0, float s1, float o1, float* y) {
    affine16(_mm256_castsi256_si128(codes), s0, o0, y);
    affine16(_mm256_extracti128_si256(codes, 1), s1, o1, y + 16);
}

// Per byte: bits (v >> shift) & mask (the shift crosses bytes in 16-bit lanes; the mask cuts it).
__m256i bits_of(__m256i v, int shift, int mask) {
    return _mm256_and_si256(_mm256_srl_epi16(v, _mm_cvtsi32_si128(shift)), _mm256_set1_epi8(static_cast<char>(mask)));
}

__m256i load32(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// Byte i: 0xFF where bit i of x is set.
__m256i bytes_of_bits(uint32_t x) {
    const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    return _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(x)), pick), bit), bit);
}

// Q4_1/Q5_0/Q5_1's 32 codes: 16 bytes of nibbles (low ones first), plus 16 for the bits of qh.
__m256i nibble_codes(const uint8_t* qs) {
    __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs)), low4 = _mm_set1_epi8(0xF);
    return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(q, 4), low4), _mm_and_si128(q, low4));
}

void q4_1_avx2(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 20, y += 32) {
        float d = half(b), m = half(b + 2);
        affine32(nibble_codes(b + 4), d, m, d, m, y);
    }
}

__m256i q5_codes(const uint8_t* qh, const uint8_t* qs) {
    return _mm256_or_si256(nibble_codes(qs), _mm256_and_si256(bytes_of_bits(u32(qh)), _mm256_set1_epi8(0x10)));
}

void q5_0_avx2(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 22, y += 32) {
        float d = half(b);
        affine32(_mm256_sub_epi8(q5_codes(b + 2, b + 6), _mm256_set1_epi8(16)), d, -0.0f, d, -0.0f, y);
    }
}

void q5_1_avx2(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 24, y += 32) {
        float d = half(b), m = half(b + 2);
        affine32(q5_codes(b + 4, b + 8), d, m, d, m, y);
    }
}

// Q2_K: per 128 elements 32 bytes of 2-bit codes, four shifts of 32, each two runs of 16.
void q2_k_avx2(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 84) {
        float d = half(b + 80), dmin = half(b + 82);
        const uint8_t* sc = b;
        for (int h = 0; h < 2; ++h) {
            __m256i q = load32(b + 16 + 32 * h);
            for (int shift = 0; shift < 8; shift += 2, sc += 2, y += 32)
                affine32(bits_of(q, shift, 3), d * static_cast<float>(sc[0] & 0xF), -(dmin * static_cast<float>(sc[0] >> 4)),
                         d * static_cast<float>(sc[1] & 0xF), -(dmin * static_cast<float>(sc[1] >> 4)), y);
        }
    }
}

// Q3_K: codes as Q2_K's, less 4 where the code's bit of hmask is clear.
void q3_k_avx2(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 110) {
        float d = half(b + 108);
        __m256i hm = load32(b);
        int is = 0;
        for (int h = 0; h < 2; ++h) {
            __m256i q = load32(b + 32 + 32 * h);
            for (int shift = 0; shift < 8; shift += 2, is += 2, y += 32) {
                __m256i bit = _mm256_set1_epi8(static_cast<char>(1 << (4 * h + shift / 2)));
                __m256i clear = _mm256_cmpeq_epi8(_mm256_and_si256(hm, bit), _mm256_setzero_si256());
                __m256i codes = _mm256_sub_epi8(bits_of(q, shift, 3), _mm256_and_si256(clear, _mm256_set1_epi8(4)));
                affine32(codes, d * static_cast<float>(q3_k_scale(b + 96, is)), -0.0f, d * static_cast<float>(q3_k_scale(b + 96, is + 1)),
                         -0.0f, y);
            }
        }
    }
}

// Q5_K: Q4_K's nibbles and scales, the fifth bit of element l of run j in bit j of qh[l].
void q5_k_avx2(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 176) {
        float d = half(b), dmin = half(b + 2);
        __m256i qh = load32(b + 16);
        for (int j = 0; j < 8; ++j, y += 32) {
            int sc, mn;
            k4_scale_min(b + 4, j, sc, mn);
            __m256i ql = bits_of(load32(b + 48 + 32 * (j / 2)), 4 * (j % 2), 0xF);
            __m256i codes = _mm256_or_si256(ql, _mm256_slli_epi16(bits_of(qh, j, 1), 4));
            float s = d * static_cast<float>(sc), o = -(dmin * static_cast<float>(mn));
            affine32(codes, s, o, s, o, y);
        }
    }
}

// Q6_K: per 128 elements ql[64] (low nibbles), qh[32] (2 high bits each), int8 scales per 16.
void q6_k_avx2(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 210) {
        float d = half(b + 208);
        const uint8_t *ql = b, *qh = b + 128;
        const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
        for (int h = 0; h < 2; ++h, ql += 64, qh += 32, sc += 8, y += 128) {
            __m256i lo = load32(ql), hi = load32(ql + 32), high = load32(qh);
            __m256i low4[4] = {bits_of(lo, 0, 0xF), bits_of(hi, 0, 0xF), bits_of(lo, 4, 0xF), bits_of(hi, 4, 0xF)};
            for (int r = 0; r < 4; ++r) {  // run r of 32: scales sc[2r], sc[2r + 1]
                __m256i codes = _mm256_or_si256(low4[r], _mm256_slli_epi16(bits_of(high, 2 * r, 3), 4));
                codes = _mm256_sub_epi8(codes, _mm256_set1_epi8(32));
                affine32(codes, d * static_cast<float>(sc[2 * r]), -0.0f, d * static_cast<float>(sc[2 * r + 1]), -0.0f, y + 32 * r);
            }
        }
    }
}

// Q1_0: 128 sign bits, +d where set, -d where clear.
void q1_0_avx2(const uint8_t* b, size_t n, float* y) {
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    for (size_t k = 0; k < n; ++k, b += 18) {
        float d = half(b);
        __m256 plus = _mm256_set1_ps(d), minus = _mm256_set1_ps(-d);
        for (int i = 0; i < 16; ++i, y += 8) {
            __m256i set = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(b[2 + i]), bit), bit);
            _mm256_storeu_ps(y, _mm256_blendv_ps(minus, plus, _mm256_castsi256_ps(set)));
        }
    }
}

// Q2_0: 2-bit codes, four to a byte from its low bits up, meaning -1, 0, +1, +2.
void q2_0_avx2(const uint8_t* b, size_t n, float* y) {
    const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14), three = _mm256_set1_epi32(3), one = _mm256_set1_epi32(1);
    for (size_t k = 0; k < n; ++k, b += 18) {
        __m256 d = _mm256_set1_ps(half(b));
        for (int i = 0; i < 16; i += 2, y += 8) {
            __m256i codes = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(u16(b + 2 + i)), shifts), three);
            _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(codes, one)), d));
        }
    }
}

// Sixteen base-3 digits less one (-1, 0, +1): byte i of `bytes` times pow[i] (mod 256), times 3, >> 8.
__m128i trits16(__m128i bytes, __m256i pow) {
    __m256i w = _mm256_and_si256(_mm256_mullo_epi16(_mm256_cvtepu8_epi16(bytes), pow), _mm256_set1_epi16(0xFF));
    w = _mm256_srli_epi16(_mm256_mullo_epi16(w, _mm256_set1_epi16(3)), 8);
    return _mm_sub_epi8(_mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)), _mm_set1_epi8(1));
}

// TQ1_0: digit t of bytes 0-31 is run t of 32, of bytes 32-47 run t of 16 after 160, of qh's
// four bytes run t of 4 after 240.
void tq1_0_avx2(const uint8_t* b, size_t n, float* y) {
    static constexpr int16_t kPow3[5] = {1, 3, 9, 27, 81};
    const __m256i qh_pow = _mm256_setr_epi16(1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27);
    for (size_t k = 0; k < n; ++k, b += 54, y += 256) {
        float d = half(b + 52);
        __m128i q0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)), q1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16));
        __m128i q2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 32));
        for (int t = 0; t < 5; ++t) {
            __m256i pow = _mm256_set1_epi16(kPow3[t]);
            affine16(trits16(q0, pow), d, -0.0f, y + 32 * t);
            affine16(trits16(q1, pow), d, -0.0f, y + 32 * t + 16);
            affine16(trits16(q2, pow), d, -0.0f, y + 160 + 16 * t);
        }
        affine16(trits16(_mm_set1_epi32(static_cast<int>(u32(b + 48))), qh_pow), d, -0.0f, y + 240);
    }
}

// TQ2_0: per 128 elements 32 bytes of 2-bit codes, four shifts of 32, meaning -1, 0, +1.
void tq2_0_avx2(const uint8_t* b, size_t n, float* y) {
    for (size_t k = 0; k < n; ++k, b += 66) {
        float d = half(b + 64);
        for (int j = 0; j < 2; ++j) {
            __m256i q = load32(b + 32 * j);
            for (int l = 0; l < 4; ++l, y += 32) affine32(_mm256_sub_epi8(bits_of(q, 2 * l, 3), _mm256_set1_epi8(1)), d, -0.0f, d, -0.0f, y);
        }
    }
}

}  // namespace

BlockDecoder avx2_decoder(uint32_t type) {
    using enum model::GgmlTypeId;
    switch (model::GgmlTypeId{type}) {
        case BF16: return bf16_avx2;
        case F16: return f16_avx2;
        case Q8_0: return q8_0_avx2;
        case Q4_K: return q4_k_avx2;
        case Q4_0: return q4_0_with<Avx2Groups>;
        case Q4_1: return q4_1_avx2;
        case Q5_0: return q5_0_avx2;
        case Q5_1: return q5_1_avx2;
        case Q2_K: return q2_k_avx2;
        case Q3_K: return q3_k_avx2;
        case Q5_K: return q5_k_avx2;
        case Q6_K: return q6_k_avx2;
        case Q1_0: return q1_0_avx2;
        case Q2_0: return q2_0_avx2;
        case TQ1_0: return tq1_0_avx2;
        case TQ2_0: return tq2_0_avx2;
        case IQ4_NL: return iq4_nl_with<Avx2Groups>;
        case IQ4_XS: return iq4_xs_with<Avx2Groups>;
        case MXFP4: return mxfp4_with<Avx2Groups>;
        case NVFP4: return nvfp4_with<Avx2Groups>;
        case IQ2_XXS: return iq2_xxs_with<Avx2Groups>;
        case IQ2_XS: return iq2_xs_with<Avx2Groups>;
        case IQ2_S: return iq2_s_with<Avx2Groups>;
        case IQ3_XXS: return iq3_xxs_with<Avx2Groups>;
        case IQ3_S: return iq3_s_with<Avx2Groups>;
        case IQ1_S: return iq1_s_with<Avx2Groups>;
        case IQ1_M: return iq1_m_with<Avx2Groups>;
        default: return nullptr;  // the plain decoder serves it
    }
}

}  // namespace modelcat::dequant::dequant_blocks

#pragma GCC pop_options
