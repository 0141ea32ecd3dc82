#include "format/dequant.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "model/ggml_types.hpp"

namespace modelcat::format {

namespace {

uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t u32(const uint8_t* p) { return u16(p) | (static_cast<uint32_t>(u16(p + 2)) << 16); }
float half(const uint8_t* p) { return fp16_to_float(u16(p)); }

// Block decoders: one block of bytes in, block_size floats out.
void q8_0(const uint8_t* b, float* y) {
    float d = half(b);
    for (int i = 0; i < 32; ++i) y[i] = d * static_cast<int8_t>(b[2 + i]);
}

void q4_0(const uint8_t* b, float* y) {
    float d = half(b);
    const uint8_t* qs = b + 2;
    for (int i = 0; i < 16; ++i) {
        y[i] = d * ((qs[i] & 0xF) - 8);
        y[i + 16] = d * ((qs[i] >> 4) - 8);
    }
}

void q4_1(const uint8_t* b, float* y) {
    float d = half(b), m = half(b + 2);
    const uint8_t* qs = b + 4;
    for (int i = 0; i < 16; ++i) {
        y[i] = d * (qs[i] & 0xF) + m;
        y[i + 16] = d * (qs[i] >> 4) + m;
    }
}

// Q5_0/Q5_1: 4 low bits in qs, the fifth bit of element i in bit i of qh.
void q5_common(const uint8_t* qh_bytes, const uint8_t* qs, float d, float m, int offset, float* y) {
    uint32_t qh = u32(qh_bytes);
    for (int i = 0; i < 16; ++i) {
        int lo = (qs[i] & 0xF) | (((qh >> i) & 1) << 4);
        int hi = (qs[i] >> 4) | (((qh >> (i + 16)) & 1) << 4);
        y[i] = d * (lo - offset) + m;
        y[i + 16] = d * (hi - offset) + m;
    }
}
void q5_0(const uint8_t* b, float* y) { q5_common(b + 2, b + 6, half(b), 0.0f, 16, y); }
void q5_1(const uint8_t* b, float* y) { q5_common(b + 4, b + 8, half(b), half(b + 2), 0, y); }

// Q2_K: scales[16] (low nibble scale, high nibble min), qs[64], d, dmin.
void q2_k(const uint8_t* b, float* y) {
    const uint8_t* scales = b;
    const uint8_t* q = b + 16;
    float d = half(b + 80), dmin = half(b + 82);
    int is = 0;
    for (int half_block = 0; half_block < 2; ++half_block, q += 32) {
        for (int shift = 0; shift < 8; shift += 2) {
            for (int part = 0; part < 2; ++part, ++is) {
                float dl = d * (scales[is] & 0xF), ml = dmin * (scales[is] >> 4);
                for (int l = 0; l < 16; ++l) *y++ = dl * ((q[16 * part + l] >> shift) & 3) - ml;
            }
        }
    }
}

// Q3_K's sixteen 6-bit scales: low 4 bits in bytes 0-7, high 2 bits in bytes 8-11.
int q3_k_scale(const uint8_t* s, int i) {
    int low = i < 8 ? (s[i] & 0xF) : (s[i - 8] >> 4);
    int high = (s[8 + (i % 4)] >> (2 * (i / 4))) & 3;
    return (low | (high << 4)) - 32;
}

// Q3_K: hmask[32] (third bit, set = no -4), qs[64] (2 low bits), scales[12], d.
void q3_k(const uint8_t* b, float* y) {
    const uint8_t* hm = b;
    const uint8_t* q = b + 32;
    const uint8_t* sc = b + 96;
    float d = half(b + 108);
    int is = 0;
    uint8_t m = 1;
    for (int half_block = 0; half_block < 2; ++half_block, q += 32) {
        for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
            for (int part = 0; part < 2; ++part, ++is) {
                float dl = d * q3_k_scale(sc, is);
                for (int l = 16 * part; l < 16 * part + 16; ++l)
                    *y++ = dl * (((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
            }
        }
    }
}

// Q4_K/Q5_K's eight 6-bit (scale, min) pairs packed in 12 bytes.
void k4_scale_min(const uint8_t* s, int j, int& sc, int& mn) {
    if (j < 4) {
        sc = s[j] & 63;
        mn = s[j + 4] & 63;
    } else {
        sc = (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4);
        mn = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// Q4_K: d, dmin, scales[12], qs[128]; Q5_K adds qh[32] before qs (fifth bits).
void q45_k(const uint8_t* b, const uint8_t* qh, const uint8_t* ql, float* y) {
    float d = half(b), dmin = half(b + 2);
    const uint8_t* scales = b + 4;
    for (int j = 0; j < 4; ++j, ql += 32) {
        for (int nib = 0; nib < 2; ++nib) {
            int sc, mn;
            k4_scale_min(scales, 2 * j + nib, sc, mn);
            float dl = d * sc, ml = dmin * mn;
            int bit = 2 * j + nib;
            for (int l = 0; l < 32; ++l) {
                int v = nib ? (ql[l] >> 4) : (ql[l] & 0xF);
                if (qh && ((qh[l] >> bit) & 1)) v += 16;
                *y++ = dl * v - ml;
            }
        }
    }
}
void q4_k(const uint8_t* b, float* y) { q45_k(b, nullptr, b + 16, y); }
void q5_k(const uint8_t* b, float* y) { q45_k(b, b + 16, b + 48, y); }

// Q6_K: ql[128] (4 low bits), qh[64] (2 high bits), int8 scales[16], d.
void q6_k(const uint8_t* b, float* y) {
    const uint8_t* ql = b;
    const uint8_t* qh = b + 128;
    const int8_t* sc = reinterpret_cast<const int8_t*>(b + 192);
    float d = half(b + 208);
    for (int n = 0; n < 2; ++n, y += 128, ql += 64, qh += 32, sc += 8) {
        for (int l = 0; l < 32; ++l) {
            int is = l / 16;
            int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
            int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            y[l] = d * sc[is] * q1;
            y[l + 32] = d * sc[is + 2] * q2;
            y[l + 64] = d * sc[is + 4] * q3;
            y[l + 96] = d * sc[is + 6] * q4;
        }
    }
}

void f32(const uint8_t* b, float* y) { *y = std::bit_cast<float>(u32(b)); }
void f16(const uint8_t* b, float* y) { *y = fp16_to_float(u16(b)); }
void bf16(const uint8_t* b, float* y) { *y = bf16_to_float(u16(b)); }

using BlockDecoder = void (*)(const uint8_t*, float*);

BlockDecoder decoder(uint32_t type) {
    switch (type) {
        case kGgmlF32: return f32;
        case kGgmlF16: return f16;
        case kGgmlBF16: return bf16;
        case kGgmlQ8_0: return q8_0;
        case kGgmlQ4_0: return q4_0;
        case kGgmlQ4_1: return q4_1;
        case kGgmlQ5_0: return q5_0;
        case kGgmlQ5_1: return q5_1;
        case kGgmlQ2_K: return q2_k;
        case kGgmlQ3_K: return q3_k;
        case kGgmlQ4_K: return q4_k;
        case kGgmlQ5_K: return q5_k;
        case kGgmlQ6_K: return q6_k;
        default: return nullptr;
    }
}

}  // namespace

float fp16_to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    if (exp == 0) {  // zero or subnormal: man * 2^-24
        float v = std::ldexp(static_cast<float>(man), -24);
        return sign ? -v : v;
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000u | (man << 13));
    return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t float_to_fp16(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7FFFFFFF;
    if (ax >= 0x7F800000) return sign | 0x7C00 | (ax > 0x7F800000 ? 0x200 : 0);
    if (ax >= 0x477FF000) return sign | 0x7C00;  // 65520 and up round to infinity
    if (ax < 0x38800000) {                       // below 2^-14: subnormal, in units of 2^-24
        float scaled = std::fabs(f) * 16777216.0f;
        return sign | static_cast<uint16_t>(std::nearbyint(scaled));
    }
    ax += 0xC8000FFFu + ((ax >> 13) & 1);  // rebias the exponent and round half to even
    return sign | static_cast<uint16_t>(ax >> 13);
}

uint16_t float_to_bf16(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7FFFFFFF) > 0x7F800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
    x += 0x7FFF + ((x >> 16) & 1);
    return static_cast<uint16_t>(x >> 16);
}

bool can_dequantize(uint32_t ggml_type) { return decoder(ggml_type) != nullptr; }

void dequantize(uint32_t ggml_type, std::span<const uint8_t> bytes, std::span<float> out) {
    BlockDecoder decode = decoder(ggml_type);
    const model::GgmlType* t = model::find_ggml_type(ggml_type);
    if (!decode || !t) throw std::invalid_argument("no dequantizer for " + model::ggml_type_name(ggml_type));
    if (out.size() % t->block_size != 0 || bytes.size() != out.size() / t->block_size * t->type_size)
        throw std::invalid_argument(std::string(t->name) + ": " + std::to_string(bytes.size()) + " bytes do not hold " +
                                    std::to_string(out.size()) + " elements in whole blocks");
    // Float types in bulk loops the compiler vectorizes: a call per element was most of an exact audit's time.
    const uint8_t* b = bytes.data();
    if (ggml_type == kGgmlBF16) {
        for (size_t i = 0; i < out.size(); ++i) out[i] = bf16_to_float(static_cast<uint16_t>(b[2 * i] | (b[2 * i + 1] << 8)));
        return;
    }
    if (ggml_type == kGgmlF32) {
        std::memcpy(out.data(), b, bytes.size());  // little-endian host
        return;
    }
    for (size_t i = 0, blocks = out.size() / t->block_size; i < blocks; ++i)
        decode(bytes.data() + i * t->type_size, out.data() + i * t->block_size);
}

std::optional<uint32_t> ggml_type_of_dtype(std::string_view dtype) {
    if (dtype == "F32") return kGgmlF32;
    if (dtype == "F16") return kGgmlF16;
    if (dtype == "BF16") return kGgmlBF16;
    return std::nullopt;
}

}  // namespace modelcat::format
