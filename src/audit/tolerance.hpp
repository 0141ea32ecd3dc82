#pragma once
// What a quantized type may lose and still pass: NMSE ceilings (error energy
// over source signal energy) for the whole tensor and for each block of the
// type, set from llama.cpp's own quantizer output (docs/audit.md explains each).
#include <cstdint>
#include <span>
#include <string_view>

namespace modelcat::audit {

struct Tolerance {
    std::string_view type;  // ggml type name
    double tensor_nmse;     // the whole tensor (or the rows compared)
    double block_nmse;      // any one block, its energy counted as at least kBlockEnergyFloor per element
};

// Below F16's smallest normal (2^-14) a block's scale loses precision: a block
// of smaller values is judged as if its values were that large.
constexpr double kBlockEnergyFloor = 1.0 / (1 << 28);

// nullptr for types compared exactly (F32, F16, BF16, F64, integers) and unknown ids.
const Tolerance* tolerance(uint32_t ggml_type);

std::span<const Tolerance> tolerance_table();

}  // namespace modelcat::audit
