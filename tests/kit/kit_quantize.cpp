#include "kit_quantize.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include "dequant/dequant.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::kit {

namespace {

constexpr float kQ8KScale = 1.0f / 1024;

void put_half(std::vector<uint8_t>& out, size_t at, float v) {
    uint16_t h = dequant::float_to_fp16(v);
    out[at] = static_cast<uint8_t>(h & 0xFF);
    out[at + 1] = static_cast<uint8_t>(h >> 8);
}

// One Q4_K block of 256 values: eight sub-blocks of 32, each with a 6-bit
// scale and min relative to the block's two fp16 super-scales.
void q4_k_block(const float* x, std::vector<uint8_t>& out) {
    size_t at = out.size();
    out.resize(at + 144, 0);
    std::array<float, 8> scale{}, minus{};
    for (int j = 0; j < 8; ++j) {
        auto [lo, hi] = std::minmax_element(x + 32 * j, x + 32 * j + 32);
        minus[j] = std::max(0.0f, -*lo);
        scale[j] = (*hi + minus[j]) / 15.0f;
    }
    float d = *std::max_element(scale.begin(), scale.end()) / 63.0f;
    float dmin = *std::max_element(minus.begin(), minus.end()) / 63.0f;
    put_half(out, at, d);
    put_half(out, at + 2, dmin);
    d = dequant::fp16_to_float(dequant::float_to_fp16(d));  // quantize against the stored values
    dmin = dequant::fp16_to_float(dequant::float_to_fp16(dmin));
    std::array<int, 8> sc{}, mn{};
    for (int j = 0; j < 8; ++j) {
        sc[j] = d > 0 ? std::clamp(static_cast<int>(std::lround(scale[j] / d)), 0, 63) : 0;
        mn[j] = dmin > 0 ? std::clamp(static_cast<int>(std::lround(minus[j] / dmin)), 0, 63) : 0;
    }
    pack_k4_scales(out.data() + at + 4, sc, mn);
    uint8_t* qs = out.data() + at + 16;
    for (int i = 0; i < 256; ++i) {
        int j = i / 32;
        float step = d * sc[j];
        int q = step > 0 ? std::clamp(static_cast<int>(std::lround((x[i] + dmin * mn[j]) / step)), 0, 15) : 0;
        qs[(i / 64) * 32 + i % 32] |= static_cast<uint8_t>(q << (4 * (j % 2)));
    }
}

}  // namespace

void pack_k4_scales(uint8_t* s, std::span<const int> sc, std::span<const int> mn) {
    for (int j = 0; j < 8; ++j) {
        if (j < 4) {  // low 6 bits of bytes 0-3 (scales) and 4-7 (mins)
            s[j] |= static_cast<uint8_t>(sc[j]);
            s[j + 4] |= static_cast<uint8_t>(mn[j]);
        } else {  // low 4 bits in bytes 8-11, top 2 bits in the spare bits of bytes 0-7
            s[j + 4] = static_cast<uint8_t>((sc[j] & 0xF) | ((mn[j] & 0xF) << 4));
            s[j - 4] |= static_cast<uint8_t>((sc[j] >> 4) << 6);
            s[j] |= static_cast<uint8_t>((mn[j] >> 4) << 6);
        }
    }
}

void quantize_q8_0(std::span<const float> x, std::vector<uint8_t>& out) {
    for (size_t b = 0; b + 32 <= x.size(); b += 32) {
        float amax = 0;
        for (size_t i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[b + i]));
        float d = amax / 127.0f, id = d > 0 ? 1.0f / d : 0.0f;
        size_t at = out.size();
        out.resize(at + 34);
        put_half(out, at, d);
        for (size_t i = 0; i < 32; ++i)
            out[at + 2 + i] = static_cast<uint8_t>(static_cast<int8_t>(std::lround(x[b + i] * id)));
    }
}

void quantize_q4_k(std::span<const float> x, std::vector<uint8_t>& out) {
    for (size_t b = 0; b + 256 <= x.size(); b += 256) q4_k_block(x.data() + b, out);
}

std::vector<uint32_t> f16_scale_fields(uint32_t type) {
    using enum model::GgmlTypeId;
    switch (model::GgmlTypeId{type}) {
        case Q4_1: case Q5_1: case Q8_1: case Q4_K: case Q5_K: return {0, 2};
        case Q4_0: case Q5_0: case Q8_0: case Q1_0: case Q2_0: case IQ2_XXS: case IQ2_XS: case IQ2_S: case IQ3_XXS:
        case IQ3_S: case IQ1_S: case IQ4_NL: case IQ4_XS: return {0};
        case Q2_K: return {80, 82};
        case Q3_K: return {108};
        case Q6_K: return {208};
        case TQ1_0: return {52};
        case TQ2_0: return {64};
        default: break;
    }
    return {};
}

void random_blocks(uint32_t type, uint64_t blocks, uint64_t seed, std::vector<uint8_t>& out) {
    using enum model::GgmlTypeId;
    const model::GgmlType* t = model::find_ggml_type(type);
    if (!t || t->block_size == 1) throw std::invalid_argument("random_blocks: not a quantized type");
    std::vector<uint32_t> fields = f16_scale_fields(type);
    std::mt19937_64 rng(seed);
    auto scale = [&rng] { return static_cast<uint16_t>(((rng() % 3 + 7) << 10) | (rng() & 0x3FF)); };  // exponents 7..9
    size_t at = out.size();
    out.resize(at + blocks * t->type_size);
    for (uint64_t b = 0; b < blocks; ++b) {
        uint8_t* p = out.data() + at + b * t->type_size;
        for (uint32_t i = 0; i < t->type_size; ++i) p[i] = static_cast<uint8_t>(rng());
        for (uint32_t f : fields) {
            uint16_t h = scale();
            p[f] = static_cast<uint8_t>(h), p[f + 1] = static_cast<uint8_t>(h >> 8);
        }
        if (type == MXFP4) p[0] = static_cast<uint8_t>(120 + rng() % 8);  // 2^-8..2^-1
        if (type == Q8_K) std::memcpy(p, &kQ8KScale, 4);
        if (type == IQ1_M) {  // the F16 scale is the top nibbles of the four u16 scales at 48
            uint16_t h = scale();
            for (int i = 0; i < 4; ++i) p[49 + 2 * i] = static_cast<uint8_t>((p[49 + 2 * i] & 0x0F) | (((h >> (4 * i)) & 0xF) << 4));
        }
    }
}

}  // namespace modelcat::kit
