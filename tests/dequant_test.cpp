// Dequantizers on blocks built by hand from the ggml layouts: quants, scales
// and mins are chosen, packed bit by bit, and the decoded floats must be the
// values those fields describe.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "format/dequant.hpp"
#include "kit/kit_quantize.hpp"

using namespace modelcat::format;

namespace {

void put_half(uint8_t* p, float v) {
    uint16_t h = float_to_fp16(v);
    p[0] = h & 0xFF;
    p[1] = h >> 8;
}

std::vector<float> decode(uint32_t type, const std::vector<uint8_t>& block, size_t n) {
    std::vector<float> y(n);
    dequantize(type, block, y);
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
    EXPECT_EQ(decode(kGgmlF32, f32, 2), (std::vector<float>{1.0f, -2.0f}));
    std::vector<uint8_t> bf = {0x80, 0x3F, 0x40, 0xC0};
    EXPECT_EQ(decode(kGgmlBF16, bf, 2), (std::vector<float>{1.0f, -3.0f}));
    std::vector<uint8_t> h = {0x00, 0x3C, 0x00, 0xC0};
    EXPECT_EQ(decode(kGgmlF16, h, 2), (std::vector<float>{1.0f, -2.0f}));
}

TEST(Dequant, Q8_0) {
    std::vector<uint8_t> b(34);
    put_half(b.data(), 0.25f);
    auto q = random_ints(-128, 127, 32, 1);
    for (int i = 0; i < 32; ++i) b[2 + i] = static_cast<uint8_t>(static_cast<int8_t>(q[i]));
    auto y = decode(kGgmlQ8_0, b, 32);
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
    auto y0 = decode(kGgmlQ4_0, b0, 32), y1 = decode(kGgmlQ4_1, b1, 32);
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
    auto y0 = decode(kGgmlQ5_0, b0, 32), y1 = decode(kGgmlQ5_1, b1, 32);
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
    auto y = decode(kGgmlQ2_K, b, 256);
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
    auto y = decode(kGgmlQ3_K, b, 256);
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
    auto y4 = decode(kGgmlQ4_K, b4, 256), y5 = decode(kGgmlQ5_K, b5, 256);
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
    auto y = decode(kGgmlQ6_K, b, 256);
    for (int i = 0; i < 256; ++i) EXPECT_EQ(y[i], 0.25f * sc[i / 16] * q[i]) << i;
}

TEST(Dequant, RefusesPartialBlocksAndUnknownTypes) {
    std::vector<float> y(32);
    std::vector<uint8_t> short_block(33);
    EXPECT_THROW(dequantize(kGgmlQ8_0, short_block, y), std::invalid_argument);
    EXPECT_FALSE(can_dequantize(17));  // IQ2_XS
    EXPECT_THROW(dequantize(17, short_block, y), std::invalid_argument);
    EXPECT_EQ(ggml_type_of_dtype("BF16"), kGgmlBF16);
    EXPECT_FALSE(ggml_type_of_dtype("I64"));
}
