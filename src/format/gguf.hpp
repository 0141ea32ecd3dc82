#pragma once
// GGUF header reader (versions 1-3, little- and big-endian), a pure function
// over a prefix of the file: it returns the header, or how many more bytes it
// needs, or throws FormatError with the offset of the problem.
#include <cstdint>
#include <span>

#include "format/parse_result.hpp"
#include "model/error.hpp"
#include "model/header.hpp"
#include "model/limits.hpp"

namespace modelcat::format {

constexpr uint32_t kGgufDefaultAlignment = 32;

// `prefix` is the first prefix.size() bytes of a file of `file_size` bytes.
ParseResult parse_gguf(std::span<const uint8_t> prefix, uint64_t file_size, const model::Limits& limits = {});

// True when the bytes start with the GGUF magic.
bool looks_like_gguf(std::span<const uint8_t> prefix);

}  // namespace modelcat::format
