#pragma once
// safetensors header reader: 8-byte little-endian length, then a JSON object
// of tensors (dtype, shape, data_offsets) and an optional __metadata__.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "format/parse_result.hpp"
#include "model/header.hpp"
#include "model/limits.hpp"

namespace modelcat::format {

constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;  // the format's own limit

// Storage bits per element of a dtype, or nullopt for a dtype this table
// does not know (kept as text, size measured from data_offsets).
std::optional<uint32_t> safetensors_dtype_bits(std::string_view dtype);

ParseResult parse_safetensors(std::span<const uint8_t> prefix, uint64_t file_size, const model::Limits& limits = {});

}  // namespace modelcat::format
