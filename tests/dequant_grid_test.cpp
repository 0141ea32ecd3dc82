// The grid quants (IQ1_S ... IQ3_S) on blocks built by hand: grid indices,
// sign indices and scales are chosen and packed bit by bit where the layout
// puts them; each decoded value must be the scale times the chosen grid
// point's value, with its sign. The grids themselves are checked against
// gguf-py's own copy in dequant_reference_test.cpp.
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <vector>

#include "dequant/dequant.hpp"
#include "dequant/dequant_tables.hpp"
#include "model/ggml_types.hpp"

using namespace modelcat::dequant;
using modelcat::model::GgmlTypeId;
namespace tables = modelcat::dequant::dequant_tables;

namespace {

// Writes the low `n` bits of `v` at bit `at` (little-endian bit order across bytes).
void put_bits(std::vector<uint8_t>& b, size_t at, int n, uint32_t v) {
    for (int i = 0; i < n; ++i)
        if ((v >> i) & 1) b[(at + i) / 8] |= static_cast<uint8_t>(1 << ((at + i) % 8));
}

void put_half(std::vector<uint8_t>& b, size_t at, float v) { put_bits(b, 8 * at, 16, float_to_fp16(v)); }

std::vector<uint32_t> random_values(uint32_t below, size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> v(n);
    for (auto& x : v) x = rng() % below;
    return v;
}

std::vector<float> decode(GgmlTypeId type, const std::vector<uint8_t>& b) {
    std::vector<float> y(256);
    dequantize(ggml_id(type), b, y);
    return y;
}

// Value j of a grid entry (one byte each).
int grid_value(uint64_t entry, int j, bool is_signed = false) {
    auto byte = static_cast<uint8_t>(entry >> (8 * j));
    return is_signed ? static_cast<int8_t>(byte) : byte;
}

// A 7-bit sign index gives eight signs: the eighth makes the count of minus signs even.
bool negative(uint32_t sign_index, int j) {
    uint32_t signs = sign_index | (std::popcount(sign_index) % 2 ? 0x80u : 0u);
    return (signs >> j) & 1;
}

float sign(bool neg) { return neg ? -1.0f : 1.0f; }

}  // namespace

TEST(DequantGrid, SignTableIsTheParityRule) {
    for (uint32_t s = 0; s < 128; ++s)
        for (int j = 0; j < 8; ++j) EXPECT_EQ(((tables::kSigns[s] >> j) & 1) != 0, negative(s, j)) << s;
}

TEST(DequantGrid, Iq2_Xxs) {
    auto grid = random_values(256, 32, 1), signs = random_values(128, 32, 2), scale = random_values(16, 8, 3);
    std::vector<uint8_t> b(66);
    put_half(b, 0, 0.5f);
    for (int ib = 0; ib < 8; ++ib) {  // per 32 values: four index bytes, then a u32 of 4 x 7 sign bits and the scale
        for (int l = 0; l < 4; ++l) {
            put_bits(b, 8 * (2 + 8 * ib + l), 8, grid[4 * ib + l]);
            put_bits(b, 8 * (6 + 8 * ib) + 7 * l, 7, signs[4 * ib + l]);
        }
        put_bits(b, 8 * (6 + 8 * ib) + 28, 4, scale[ib]);
    }
    auto y = decode(GgmlTypeId::IQ2_XXS, b);
    for (int i = 0; i < 256; ++i) {
        int g = i / 8, j = i % 8;
        float db = 0.5f * (0.5f + scale[i / 32]) * 0.25f;
        EXPECT_EQ(y[i], sign(negative(signs[g], j)) * db * grid_value(tables::kIq2xxsGrid[grid[g]], j)) << i;
    }
}

TEST(DequantGrid, Iq2_XsAndIq2_S) {
    auto grid = random_values(1024, 32, 4), signs = random_values(256, 32, 5), scale = random_values(16, 16, 6);
    std::vector<uint8_t> xs(74), s(82);
    put_half(xs, 0, 0.25f);
    put_half(s, 0, 0.25f);
    for (int g = 0; g < 32; ++g) {
        put_bits(xs, 8 * (2 + 2 * g), 9, grid[g] % 512);  // u16: 9-bit index, 7-bit sign index
        put_bits(xs, 8 * (2 + 2 * g) + 9, 7, signs[g] % 128);
        put_bits(s, 8 * (2 + g), 8, grid[g] & 0xFF);       // IQ2_S: low index byte, its 2 high bits in qh,
        put_bits(s, 8 * (66 + g / 4) + 2 * (g % 4), 2, grid[g] >> 8);
        put_bits(s, 8 * (34 + g), 8, signs[g]);            // and a whole sign byte
    }
    for (int h = 0; h < 16; ++h) {  // a 4-bit scale per 16 values
        put_bits(xs, 8 * 66 + 4 * h, 4, scale[h]);
        put_bits(s, 8 * 74 + 4 * h, 4, scale[h]);
    }
    auto yxs = decode(GgmlTypeId::IQ2_XS, xs), ys = decode(GgmlTypeId::IQ2_S, s);
    for (int i = 0; i < 256; ++i) {
        int g = i / 8, j = i % 8;
        float db = 0.25f * (0.5f + scale[i / 16]) * 0.25f;
        EXPECT_EQ(yxs[i], sign(negative(signs[g] % 128, j)) * db * grid_value(tables::kIq2xsGrid[grid[g] % 512], j)) << i;
        EXPECT_EQ(ys[i], sign((signs[g] >> j) & 1) * db * grid_value(tables::kIq2sGrid[grid[g]], j)) << i;
    }
}

TEST(DequantGrid, Iq3_XxsAndIq3_S) {
    auto grid = random_values(512, 64, 7), signs = random_values(256, 32, 8), scale = random_values(16, 8, 9);
    std::vector<uint8_t> xxs(98), s(110);
    put_half(xxs, 0, 0.125f);
    put_half(s, 0, 0.125f);
    for (int q = 0; q < 64; ++q) {  // one index per 4 values; IQ3_S's ninth bits in qh
        put_bits(xxs, 8 * (2 + q), 8, grid[q] % 256);
        put_bits(s, 8 * (2 + q), 8, grid[q] & 0xFF);
        put_bits(s, 8 * 66 + q, 1, grid[q] >> 8);
    }
    for (int g = 0; g < 32; ++g) {
        put_bits(xxs, 8 * (66 + 4 * (g / 4)) + 7 * (g % 4), 7, signs[g] % 128);
        put_bits(s, 8 * (74 + g), 8, signs[g]);
    }
    for (int ib = 0; ib < 8; ++ib) {
        put_bits(xxs, 8 * (66 + 4 * ib) + 28, 4, scale[ib]);
        put_bits(s, 8 * 106 + 4 * ib, 4, scale[ib]);
    }
    auto yxxs = decode(GgmlTypeId::IQ3_XXS, xxs), ys = decode(GgmlTypeId::IQ3_S, s);
    for (int i = 0; i < 256; ++i) {
        int q = i / 4, g = i / 8, j = i % 8, ib = i / 32;
        float dxxs = 0.125f * (0.5f + scale[ib]) * 0.5f, ds = 0.125f * (1 + 2 * static_cast<int>(scale[ib]));
        EXPECT_EQ(yxxs[i], sign(negative(signs[g] % 128, j)) * dxxs * grid_value(tables::kIq3xxsGrid[grid[q] % 256], i % 4)) << i;
        EXPECT_EQ(ys[i], sign((signs[g] >> j) & 1) * ds * grid_value(tables::kIq3sGrid[grid[q]], i % 4)) << i;
    }
}

TEST(DequantGrid, Iq1_SAndIq1_M) {
    auto grid = random_values(2048, 32, 10), scale = random_values(8, 16, 11), minus = random_values(2, 32, 12);
    std::vector<uint8_t> s(50), m(56);
    put_half(s, 0, 0.5f);
    for (int g = 0; g < 32; ++g) {
        put_bits(s, 8 * (2 + g), 8, grid[g] & 0xFF);  // IQ1_S: per 32 values a u16 of 4 x 3 high index bits,
        put_bits(s, 8 * (34 + 2 * (g / 4)) + 3 * (g % 4), 3, grid[g] >> 8);
        put_bits(m, 8 * g, 8, grid[g] & 0xFF);        // IQ1_M: per 8 values a nibble of 3 index bits and the delta sign
        put_bits(m, 8 * 32 + 4 * g, 3, grid[g] >> 8);
        put_bits(m, 8 * 32 + 4 * g + 3, 1, minus[g]);
    }
    for (int ib = 0; ib < 8; ++ib) {  // IQ1_S: 3-bit scale and the delta's sign on top of each u16
        put_bits(s, 8 * (34 + 2 * ib) + 12, 3, scale[ib]);
        put_bits(s, 8 * (34 + 2 * ib) + 15, 1, minus[4 * ib]);
    }
    uint16_t d = float_to_fp16(0.25f);
    for (int k = 0; k < 4; ++k) {  // IQ1_M: four u16 of four 3-bit scales each, their top nibbles the F16 scale
        for (int h = 0; h < 4; ++h) put_bits(m, 8 * (48 + 2 * k) + 3 * h, 3, scale[4 * k + h]);
        put_bits(m, 8 * (48 + 2 * k) + 12, 4, d >> (4 * k));
    }
    auto ys = decode(GgmlTypeId::IQ1_S, s), ym = decode(GgmlTypeId::IQ1_M, m);
    for (int i = 0; i < 256; ++i) {
        int g = i / 8, j = i % 8;
        float v = static_cast<float>(grid_value(tables::kIq1sGrid[grid[g]], j, true));
        float delta_s = minus[4 * (i / 32)] ? -0.125f : 0.125f, delta_m = minus[g] ? -0.125f : 0.125f;
        EXPECT_EQ(ys[i], 0.5f * (2 * static_cast<int>(scale[i / 32]) + 1) * (v + delta_s)) << i;
        EXPECT_EQ(ym[i], 0.25f * (2 * static_cast<int>(scale[i / 16]) + 1) * (v + delta_m)) << i;
    }
}
