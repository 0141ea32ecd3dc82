#pragma once
// Tensor values: the float formats and every ggml block layout of
// ggml_types.def decoded to float, and the rounding a narrowing conversion
// applies. Pure functions over bytes (little-endian, as GGUF and safetensors
// store them).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "dequant/block_decoder.hpp"

namespace modelcat::dequant {

float fp16_to_float(uint16_t h);
float bf16_to_float(uint16_t b);
// Round to nearest, ties to even (what torch and numpy do when narrowing).
uint16_t float_to_fp16(float f);
uint16_t float_to_bf16(float f);

// True for the ggml types dequantize() decodes: every type of ggml_types.def.
bool can_dequantize(uint32_t ggml_type);

// One type's decoder, looked up once for many calls, computing what
// dequantize() computes; nullptr for a type can_dequantize() refuses.
BlockDecoder block_decoder(uint32_t ggml_type);

// True when this CPU has AVX2, FMA and F16C: block_decoder() then returns the
// vectorised twin of a type's decoder where there is one (the same bits).
bool cpu_has_avx2();

// Decodes out.size() elements from `bytes`, which must hold exactly that many
// (whole blocks), to the floats ggml's own dequantize_row_* computes (I32,
// I64 and F64 rounded to the nearest float). Throws std::invalid_argument
// otherwise or for a type can_dequantize() refuses.
void dequantize(uint32_t ggml_type, std::span<const uint8_t> bytes, std::span<float> out);

// The ggml type with the same element encoding as a safetensors dtype
// (F64, F32, F16, BF16, I64, I32, I16, I8); nullopt for the others.
std::optional<uint32_t> ggml_type_of_dtype(std::string_view dtype);

}  // namespace modelcat::dequant
