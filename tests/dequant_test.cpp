// Dequantizers on blocks built by hand from the ggml layouts: quants, scales
// and mins are chosen, packed bit by bit, and the decoded floats must be the
// values those fields describe.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "dequant/dequant.hpp"
#include "model/ggml_types.hpp"
#include "kit/kit_quantize.hpp"

using namespace modelcat::dequant;
using modelcat::model::GgmlTypeId;

namespace {

void put_half(uint8_t* p, float v) {
    uint16_t h = float_to_fp16(v);
    p[0] = h & 0xFF;
    p[1] = h >> 8;
}

std::vector<float> decode(GgmlTypeId type, const std::vector<uint8_t>& block, size_t n) {
    std::vector<float> y(n);
    dequantize(ggml_id(type), block, y);
    return y;
}

std::vector<int> random_ints(int lo, int hi, size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    std::vector<int> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

}  // namespace

TEST(Fp16, KnownValuesAndRoundTrip) {
    EXPECT_EQ(fp16_to_float(0x3C00), 1.0f);
    EXPECT_EQ(fp16_to_float(0xC000), -2.0f);
    EXPECT_EQ(fp16_to_float(0x7BFF), 65504.0f);
    EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(fp16_to_float(0x0400), std::ldexp(1.0f, -14));
    EXPECT_TRUE(std::isinf(fp16_to_float(0x7C00)));
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue;  // NaNs
        ASSERT_EQ(float_to_fp16(fp16_to_float(static_cast<uint16_t>(h))), h) << h;
    }
    EXPECT_EQ(float_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie: down to even
    EXPECT_EQ(float_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie: up to even
    EXPECT_EQ(float_to_fp16(65520.0f), 0x7C00);
    EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -25) * 3), 0x0002);  // subnormal 1.5 ulp -> 2
}

TEST(Bf16, KnownValuesAndRounding) {
    EXPECT_EQ(bf16_to_float(0x3F80), 1.0f);
    EXPECT_EQ(bf16_to_float(0xC040), -3.0f);
    EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
    EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
    EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3F81);
}

TEST(Dequant, FloatTypesAreBitExact) {
    std::vector<uint8_t> f32 = {0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0};
    EXPECT_EQ(decode(GgmlTypeId::F32, f32, 2), (std::vector<float>{1.0f, -2.0f}));
    std::vector<uint8_t> bf = {0x80, 0x3F, 0x40, 0xC0};
    EXPECT_EQ(decode(GgmlTypeId::BF16, bf, 2), (std::vector<float>{1.0f, -3.0f}));
    std::vector<uint8_t> h = {0x00, 0x3C, 0x00, 0xC0};
    EXPECT_EQ(decode(GgmlTypeId::F16, h, 2), (std::vector<float>{1.0f, -2.0f}));
}

TEST(Dequant, Q8_0) {
    std::vector<uint8_t> b(34);
    put_half(b.data(), 0.25f);
    auto q = random_ints(-128, 127, 32, 1);
    for (int i = 0; i < 32; ++i) b[2 + i] = static_cast<uint8_t>(static_cast<int8_t>(q[i]));
    auto y = decode(GgmlTypeId::Q8_0, b, 32);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(y[i], 0.25f * q[i]) << i;
}

TEST(Dequant, Q4_0AndQ4_1) {
    auto q = random_ints(0, 15, 32, 2);
    std::vector<uint8_t> b0(18), b1(20);
    put_half(b0.data(), 0.5f);
    put_half(b1.data(), 0.5f);
    put_half(b1.data() + 2, -1.25f);
    for (int i = 0; i < 32; ++i) {
        b0[2 + i % 16] |= static_cast<uint8_t>(q[i] << (4 * (i / 16)));
        b1[4 + i % 16] |= static_cast<uint8_t>(q[i] << (4 * (i / 16)));
    }
    auto y0 = decode(GgmlTypeId::Q4_0, b0, 32), y1 = decode(GgmlTypeId::Q4_1, b1, 32);
    for (int i = 0; i < 32; ++i) {
        EXPECT_EQ(y0[i], 0.5f * (q[i] - 8)) << i;
        EXPECT_EQ(y1[i], 0.5f * q[i] - 1.25f) << i;
    }
}

TEST(Dequant, Q5_0AndQ5_1) {
    auto q = random_ints(0, 31, 32, 3);
    std::vector<uint8_t> b0(22), b1(24);
    put_half(b0.data(), 0.125f);
    put_half(b1.data(), 0.125f);
    put_half(b1.data() + 2, 2.0f);
    for (int i = 0; i < 32; ++i) {
        uint8_t nib = static_cast<uint8_t>((q[i] & 0xF) << (4 * (i / 16)));
        b0[6 + i % 16] |= nib;
        b1[8 + i % 16] |= nib;
        if (q[i] & 0x10) {  // fifth bit of element i: bit i of the 32-bit qh
            b0[2 + i / 8] |= static_cast<uint8_t>(1 << (i % 8));
            b1[4 + i / 8] |= static_cast<uint8_t>(1 << (i % 8));
        }
    }
    auto y0 = decode(GgmlTypeId::Q5_0, b0, 32), y1 = decode(GgmlTypeId::Q5_1, b1, 32);
    for (int i = 0; i < 32; ++i) {
        EXPECT_EQ(y0[i], 0.125f * (q[i] - 16)) << i;
        EXPECT_EQ(y1[i], 0.125f * q[i] + 2.0f) << i;
    }
}

// Where element i of a 256-block sits in Q2_K/Q3_K's 2-bit array: halves of
// 128, four shifts of 32, two runs of 16.
struct TwoBitPos {
    int byte, shift, hmask_byte, hmask_bit;
};
TwoBitPos two_bit_pos(int i) {
    int h = i / 128, r = i % 128, j = r / 32, part = (r % 32) / 16, l = r % 16;
    return {h * 32 + part * 16 + l, 2 * j, part * 16 + l, h * 4 + j};
}

TEST(Dequant, Q2_K) {
    std::vector<uint8_t> b(84);
    auto q = random_ints(0, 3, 256, 4), sc = random_ints(0, 15, 16, 5), mn = random_ints(0, 15, 16, 6);
    put_half(b.data() + 80, 0.5f);
    put_half(b.data() + 82, 0.25f);
    for (int s = 0; s < 16; ++s) b[s] = static_cast<uint8_t>(sc[s] | (mn[s] << 4));
    for (int i = 0; i < 256; ++i) {
        auto p = two_bit_pos(i);
        b[16 + p.byte] |= static_cast<uint8_t>(q[i] << p.shift);
    }
    auto y = decode(GgmlTypeId::Q2_K, b, 256);
    for (int i = 0; i < 256; ++i) EXPECT_EQ(y[i], 0.5f * sc[i / 16] * q[i] - 0.25f * mn[i / 16]) << i;
}

TEST(Dequant, Q3_K) {
    std::vector<uint8_t> b(110);
    auto q = random_ints(-4, 3, 256, 7), sc = random_ints(-32, 31, 16, 8);
    put_half(b.data() + 108, 0.5f);
    for (int s = 0; s < 16; ++s) {
        int u = sc[s] + 32;  // stored 6-bit: low nibble in bytes 0-7, top 2 bits in bytes 8-11
        b[96 + s % 8] |= static_cast<uint8_t>((u & 0xF) << (4 * (s / 8)));
        b[96 + 8 + s % 4] |= static_cast<uint8_t>((u >> 4) << (2 * (s / 4)));
    }
    for (int i = 0; i < 256; ++i) {
        auto p = two_bit_pos(i);
        int low = q[i] >= 0 ? q[i] : q[i] + 4;
        b[32 + p.byte] |= static_cast<uint8_t>(low << p.shift);
        if (q[i] >= 0) b[p.hmask_byte] |= static_cast<uint8_t>(1 << p.hmask_bit);
    }
    auto y = decode(GgmlTypeId::Q3_K, b, 256);
    for (int i = 0; i < 256; ++i) EXPECT_EQ(y[i], 0.5f * sc[i / 16] * q[i]) << i;
}

TEST(Dequant, Q4_KAndQ5_K) {
    auto q = random_ints(0, 31, 256, 9), sc = random_ints(0, 63, 8, 10), mn = random_ints(0, 63, 8, 11);
    std::vector<uint8_t> b4(144), b5(176);
    for (auto* b : {&b4, &b5}) {
        put_half(b->data(), 0.125f);
        put_half(b->data() + 2, 0.0625f);
        modelcat::kit::pack_k4_scales(b->data() + 4, sc, mn);
    }
    for (int i = 0; i < 256; ++i) {
        int j = i / 64, nib = (i % 64) / 32, l = i % 32;
        b4[16 + j * 32 + l] |= static_cast<uint8_t>((q[i] & 0xF) << (4 * nib));
        b5[48 + j * 32 + l] |= static_cast<uint8_t>((q[i] & 0xF) << (4 * nib));
        if (q[i] & 0x10) b5[16 + l] |= static_cast<uint8_t>(1 << (2 * j + nib));
    }
    auto y4 = decode(GgmlTypeId::Q4_K, b4, 256), y5 = decode(GgmlTypeId::Q5_K, b5, 256);
    for (int i = 0; i < 256; ++i) {
        float m = 0.0625f * mn[i / 32], d = 0.125f * sc[i / 32];
        EXPECT_EQ(y4[i], d * (q[i] & 0xF) - m) << i;
        EXPECT_EQ(y5[i], d * q[i] - m) << i;
    }
}

TEST(Dequant, Q6_K) {
    std::vector<uint8_t> b(210);
    auto q = random_ints(-32, 31, 256, 12), sc = random_ints(-128, 127, 16, 13);
    put_half(b.data() + 208, 0.25f);
    for (int s = 0; s < 16; ++s) b[192 + s] = static_cast<uint8_t>(static_cast<int8_t>(sc[s]));
    for (int i = 0; i < 256; ++i) {
        int n = i / 128, quarter = (i % 128) / 32, l = i % 32, u = q[i] + 32;
        int ql = n * 64 + l + (quarter % 2) * 32;
        b[ql] |= static_cast<uint8_t>((u & 0xF) << (4 * (quarter / 2)));
        b[128 + n * 32 + l] |= static_cast<uint8_t>((u >> 4) << (2 * quarter));
    }
    auto y = decode(GgmlTypeId::Q6_K, b, 256);
    for (int i = 0; i < 256; ++i) EXPECT_EQ(y[i], 0.25f * sc[i / 16] * q[i]) << i;
}

TEST(Dequant, Q8_1AndQ8_K) {
    auto q = random_ints(-128, 127, 256, 14);
    std::vector<uint8_t> b1(36), bk(292);
    put_half(b1.data(), 0.5f);
    put_half(b1.data() + 2, 1000.0f);  // d * sum(q): not a value
    uint32_t d = std::bit_cast<uint32_t>(0.03125f);
    for (int i = 0; i < 4; ++i) bk[i] = static_cast<uint8_t>(d >> (8 * i));
    for (int i = 0; i < 256; ++i) {
        if (i < 32) b1[4 + i] = static_cast<uint8_t>(static_cast<int8_t>(q[i]));
        bk[4 + i] = static_cast<uint8_t>(static_cast<int8_t>(q[i]));
    }
    std::fill(bk.begin() + 260, bk.end(), 0x7F);  // block sums: not values
    auto y1 = decode(GgmlTypeId::Q8_1, b1, 32), yk = decode(GgmlTypeId::Q8_K, bk, 256);
    for (int i = 0; i < 256; ++i) {
        if (i < 32) {
            EXPECT_EQ(y1[i], 0.5f * q[i]) << i;
        }
        EXPECT_EQ(yk[i], 0.03125f * q[i]) << i;
    }
}

TEST(Dequant, Q1_0AndQ2_0) {
    auto signs = random_ints(0, 1, 128, 15), codes = random_ints(0, 3, 64, 16);
    std::vector<uint8_t> b1(18), b2(18);
    put_half(b1.data(), 0.75f);
    put_half(b2.data(), -0.5f);
    for (int i = 0; i < 128; ++i) b1[2 + i / 8] |= static_cast<uint8_t>(signs[i] << (i % 8));
    for (int i = 0; i < 64; ++i) b2[2 + i / 4] |= static_cast<uint8_t>(codes[i] << (2 * (i % 4)));
    auto y1 = decode(GgmlTypeId::Q1_0, b1, 128), y2 = decode(GgmlTypeId::Q2_0, b2, 64);
    for (int i = 0; i < 128; ++i) EXPECT_EQ(y1[i], signs[i] ? 0.75f : -0.75f) << i;
    for (int i = 0; i < 64; ++i) EXPECT_EQ(y2[i], -0.5f * (codes[i] - 1)) << i;  // codes mean -1, 0, +1, +2
}

// E2M1 codes: sign bit 3, then 0, 0.5, 1, 1.5, 2, 3, 4, 6 (ggml stores them doubled, halving the scale).
float e2m1(int code) {
    static constexpr float kMagnitude[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    return code & 8 ? -kMagnitude[code & 7] : kMagnitude[code & 7];
}

TEST(Dequant, Mxfp4AndNvfp4) {
    auto codes = random_ints(0, 15, 64, 17);
    std::vector<uint8_t> mx(17 * 2), nv(36);
    mx[0] = 127 + 3;  // E8M0: 2^3
    mx[17] = 1;       // 2^-126
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 32; ++i) mx[17 * k + 1 + i % 16] |= static_cast<uint8_t>(codes[i] << (4 * (i / 16)));
    // UE4M3 scales: 1.0 (exponent 7), 1.375 * 2^-3, the subnormal 5 * 2^-9, and 0x7F, which ggml reads as 0.
    uint8_t scales[4] = {7 << 3, (4 << 3) | 3, 5, 0x7F};
    float scale_values[4] = {1.0f, 1.375f / 8, 5.0f / 512, 0.0f};
    for (int s = 0; s < 4; ++s) {
        nv[s] = scales[s];
        for (int i = 0; i < 16; ++i) nv[4 + 8 * s + i % 8] |= static_cast<uint8_t>(codes[16 * s + i] << (4 * (i / 8)));
    }
    auto ymx = decode(GgmlTypeId::MXFP4, mx, 64), ynv = decode(GgmlTypeId::NVFP4, nv, 64);
    for (int i = 0; i < 64; ++i) {
        EXPECT_EQ(ymx[i], e2m1(codes[i % 32]) * (i < 32 ? 8.0f : std::ldexp(1.0f, -126))) << i;
        EXPECT_EQ(ynv[i], e2m1(codes[i]) * scale_values[i / 16]) << i;
    }
}

constexpr int kIq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

TEST(Dequant, Iq4_NlAndIq4_Xs) {
    auto codes = random_ints(0, 15, 256, 18), sc = random_ints(0, 63, 8, 19);
    std::vector<uint8_t> nl(18), xs(136);
    put_half(nl.data(), 0.0625f);
    put_half(xs.data(), 0.125f);
    for (int i = 0; i < 32; ++i) nl[2 + i % 16] |= static_cast<uint8_t>(codes[i] << (4 * (i / 16)));
    for (int s = 0; s < 8; ++s) {  // 6-bit scales: low nibbles in scales_l, 2 high bits in the u16 scales_h
        xs[4 + s / 2] |= static_cast<uint8_t>((sc[s] & 0xF) << (4 * (s % 2)));
        xs[2 + s / 4] |= static_cast<uint8_t>((sc[s] >> 4) << (2 * (s % 4)));
    }
    for (int i = 0; i < 256; ++i) xs[8 + 16 * (i / 32) + i % 16] |= static_cast<uint8_t>(codes[i] << (4 * ((i % 32) / 16)));
    auto ynl = decode(GgmlTypeId::IQ4_NL, nl, 32), yxs = decode(GgmlTypeId::IQ4_XS, xs, 256);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(ynl[i], 0.0625f * kIq4nl[codes[i]]) << i;
    for (int i = 0; i < 256; ++i) EXPECT_EQ(yxs[i], 0.125f * (sc[i / 32] - 32) * kIq4nl[codes[i]]) << i;
}

TEST(Dequant, Tq1_0AndTq2_0) {
    auto t = random_ints(-1, 1, 256, 20);
    std::vector<uint8_t> b1(54), b2(66);
    put_half(b1.data() + 52, 0.5f);
    put_half(b2.data() + 64, 0.25f);
    // TQ1_0: a byte holds 5 (the last 4 bytes: 4) trits d0..d4 as the fixed-point fraction
    // ceil(sum(d_n * 3^(4-n)) * 256 / 243), digit n the n-th run of 32 (16, 4) elements.
    auto pack = [&](int first, int run, int digits, int bytes, int at) {
        for (int m = 0; m < bytes; ++m) {
            int v = 0;
            for (int n = 0; n < digits; ++n) v = 3 * v + t[first + n * run + m] + 1;
            for (int n = digits; n < 5; ++n) v *= 3;  // 4-trit bytes use the top four digits
            b1[at + m] = static_cast<uint8_t>((v * 256 + 242) / 243);
        }
    };
    pack(0, 32, 5, 32, 0);
    pack(160, 16, 5, 16, 32);
    pack(240, 4, 4, 4, 48);
    for (int i = 0; i < 256; ++i) {  // TQ2_0: element 128j + 32l + m in bits 2l of byte 32j + m
        int j = i / 128, l = (i % 128) / 32, m = i % 32;
        b2[32 * j + m] |= static_cast<uint8_t>((t[i] + 1) << (2 * l));
    }
    auto y1 = decode(GgmlTypeId::TQ1_0, b1, 256), y2 = decode(GgmlTypeId::TQ2_0, b2, 256);
    for (int i = 0; i < 256; ++i) {
        EXPECT_EQ(y1[i], 0.5f * t[i]) << i;
        EXPECT_EQ(y2[i], 0.25f * t[i]) << i;
    }
}

TEST(Dequant, IntegerAndF64Elements) {
    std::vector<uint8_t> i8 = {0x80, 0x7F}, i16 = {0x00, 0x80, 0xFF, 0x7F}, i32 = {0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0, 1},
                         i64 = {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, f64(8);
    uint64_t bits = std::bit_cast<uint64_t>(-0.1);
    for (int i = 0; i < 8; ++i) f64[i] = static_cast<uint8_t>(bits >> (8 * i));
    EXPECT_EQ(decode(GgmlTypeId::I8, i8, 2), (std::vector<float>{-128, 127}));
    EXPECT_EQ(decode(GgmlTypeId::I16, i16, 2), (std::vector<float>{-32768, 32767}));
    EXPECT_EQ(decode(GgmlTypeId::I32, i32, 2), (std::vector<float>{-1, 16777216.0f}));  // 2^24 + 1: the nearest float is 2^24
    EXPECT_EQ(decode(GgmlTypeId::I64, i64, 1), (std::vector<float>{-2}));
    EXPECT_EQ(decode(GgmlTypeId::F64, f64, 1), (std::vector<float>{-0.1f}));
}

TEST(Dequant, EveryTypeOfTheTableHasADecoder) {
    for (const auto& t : modelcat::model::ggml_types()) EXPECT_TRUE(can_dequantize(t.id)) << t.name;
    EXPECT_FALSE(can_dequantize(4));   // removed from ggml (Q4_2)
    EXPECT_FALSE(can_dequantize(43));  // newer than this table
}

TEST(Dequant, RefusesPartialBlocksAndUnknownTypes) {
    std::vector<float> y(32);
    std::vector<uint8_t> short_block(33);
    EXPECT_THROW(dequantize(ggml_id(GgmlTypeId::Q8_0), short_block, y), std::invalid_argument);
    EXPECT_THROW(dequantize(43, short_block, y), std::invalid_argument);
    EXPECT_EQ(ggml_type_of_dtype("BF16"), ggml_id(GgmlTypeId::BF16));
    EXPECT_EQ(ggml_type_of_dtype("I64"), ggml_id(GgmlTypeId::I64));
    EXPECT_FALSE(ggml_type_of_dtype("U8"));
    EXPECT_FALSE(ggml_type_of_dtype("F8_E4M3"));
}
