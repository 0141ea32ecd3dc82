#pragma once
// Tensor values: the float formats and ggml's quantized block layouts decoded
// to float, and the rounding a narrowing conversion applies. Pure functions
// over bytes (little-endian, as GGUF and safetensors store them).
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace modelcat::format {

float fp16_to_float(uint16_t h);
float bf16_to_float(uint16_t b);
// Round to nearest, ties to even (what torch and numpy do when narrowing).
uint16_t float_to_fp16(float f);
uint16_t float_to_bf16(float f);

// True for the ggml types dequantize() decodes.
bool can_dequantize(uint32_t ggml_type);

// Decodes out.size() elements from `bytes`, which must hold exactly that many
// (whole blocks). Throws std::invalid_argument otherwise or for a type
// can_dequantize() refuses.
void dequantize(uint32_t ggml_type, std::span<const uint8_t> bytes, std::span<float> out);

// The ggml type with the same element encoding as a safetensors dtype
// (F32, F16, BF16); nullopt for the others.
std::optional<uint32_t> ggml_type_of_dtype(std::string_view dtype);

// ggml type ids used by name in the audit.
constexpr uint32_t kGgmlF32 = 0, kGgmlF16 = 1, kGgmlQ4_0 = 2, kGgmlQ4_1 = 3, kGgmlQ5_0 = 6, kGgmlQ5_1 = 7,
                   kGgmlQ8_0 = 8, kGgmlQ2_K = 10, kGgmlQ3_K = 11, kGgmlQ4_K = 12, kGgmlQ5_K = 13, kGgmlQ6_K = 14,
                   kGgmlBF16 = 30;

}  // namespace modelcat::format
