#include "dequant/dequant.hpp"

#include <cpuid.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "dequant/dequant_blocks.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::dequant {

// Here, not beside the AVX2 twins: that file may be compiled for AVX2 as a whole (CMakeLists.txt), and
// this runs on any CPU. F16C by cpuid: clang 14's __builtin_cpu_supports does not know "f16c".
bool cpu_has_avx2() {
    static const bool yes = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
        return f16c && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return yes;
}

namespace {

using dequant_blocks::u16;
using dequant_blocks::u32;
using dequant_blocks::u64;

// Float and integer element types, one element a block.
void f32(const uint8_t* b, size_t n, float* y) { std::memcpy(y, b, 4 * n); }  // little-endian host
void f16(const uint8_t* b, size_t n, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = dequant_blocks::half(b + 2 * i);
}
void bf16(const uint8_t* b, size_t n, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = std::bit_cast<float>(static_cast<uint32_t>(u16(b + 2 * i)) << 16);
}
void f64(const uint8_t* b, size_t n, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(std::bit_cast<double>(u64(b + 8 * i)));
}
void i8(const uint8_t* b, size_t n, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<int8_t>(b[i]);
}
void i16(const uint8_t* b, size_t n, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<int16_t>(u16(b + 2 * i));
}
void i32(const uint8_t* b, size_t n, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(u32(b + 4 * i)));
}
void i64(const uint8_t* b, size_t n, float* y) {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int64_t>(u64(b + 8 * i)));
}

}  // namespace

namespace dequant_blocks {

BlockDecoder plain_decoder(uint32_t type) {
    using enum model::GgmlTypeId;
    switch (model::GgmlTypeId{type}) {
        case F32: return f32;
        case F16: return f16;
        case BF16: return bf16;
        case F64: return f64;
        case I8: return i8;
        case I16: return i16;
        case I32: return i32;
        case I64: return i64;
        case Q4_0: return q4_0;
        case Q4_1: return q4_1;
        case Q5_0: return q5_0;
        case Q5_1: return q5_1;
        case Q8_0: return q8_0;
        case Q8_1: return q8_1;
        case Q1_0: return q1_0;
        case Q2_0: return q2_0;
        case MXFP4: return mxfp4;
        case NVFP4: return nvfp4;
        case IQ4_NL: return iq4_nl;
        case Q2_K: return q2_k;
        case Q3_K: return q3_k;
        case Q4_K: return q4_k;
        case Q5_K: return q5_k;
        case Q6_K: return q6_k;
        case Q8_K: return q8_k;
        case TQ1_0: return tq1_0;
        case TQ2_0: return tq2_0;
        case IQ1_S: return iq1_s;
        case IQ1_M: return iq1_m;
        case IQ2_XXS: return iq2_xxs;
        case IQ2_XS: return iq2_xs;
        case IQ2_S: return iq2_s;
        case IQ3_XXS: return iq3_xxs;
        case IQ3_S: return iq3_s;
        case IQ4_XS: return iq4_xs;
    }
    return nullptr;
}

}  // namespace dequant_blocks

float fp16_to_float(uint16_t h) { return dequant_blocks::half_bits_to_float(h); }

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

bool can_dequantize(uint32_t ggml_type) { return dequant_blocks::plain_decoder(ggml_type) != nullptr; }

BlockDecoder block_decoder(uint32_t ggml_type) {
    BlockDecoder fast = cpu_has_avx2() ? dequant_blocks::avx2_decoder(ggml_type) : nullptr;
    return fast ? fast : dequant_blocks::plain_decoder(ggml_type);
}

void dequantize(uint32_t ggml_type, std::span<const uint8_t> bytes, std::span<float> out) {
    BlockDecoder decode = block_decoder(ggml_type);
    const model::GgmlType* t = model::find_ggml_type(ggml_type);
    if (!decode || !t) throw std::invalid_argument("no dequantizer for " + model::ggml_type_name(ggml_type));
    if (out.size() % t->block_size != 0 || bytes.size() != out.size() / t->block_size * t->type_size)
        throw std::invalid_argument(std::string(t->name) + ": " + std::to_string(bytes.size()) + " bytes do not hold " +
                                    std::to_string(out.size()) + " elements in whole blocks");
    decode(bytes.data(), out.size() / t->block_size, out.data());
}

std::optional<uint32_t> ggml_type_of_dtype(std::string_view dtype) {
    using enum model::GgmlTypeId;
    for (auto [name, id] : {std::pair{"F64", F64}, {"F32", F32}, {"F16", F16}, {"BF16", BF16}, {"I64", I64}, {"I32", I32},
                            {"I16", I16}, {"I8", I8}})
        if (dtype == name) return model::ggml_id(id);
    return std::nullopt;
}

}  // namespace modelcat::dequant
