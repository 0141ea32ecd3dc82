#pragma once
// The shape of one ggml type's decoder, shared by format::dequantize's callers
// and the decoders behind it (dequant_blocks.hpp) without either including the other.
#include <cstddef>
#include <cstdint>

namespace modelcat::dequant {

// `blocks` whole blocks of bytes in, blocks * block_size floats out.
using BlockDecoder = void (*)(const uint8_t* bytes, size_t blocks, float* out);

}  // namespace modelcat::dequant
