#pragma once
// Writing generated model files: the header bytes, then the data region.
#include <cstdint>
#include <filesystem>
#include <span>

namespace modelcat::kit {

// How the data region after a header is materialised.
enum class DataMode {
    sparse,  // ftruncate to the full size: a hole, costs no disk
    zeros,   // real zero bytes, for code that must not meet a hole
};

// Writes `head`, then extends the file to `total_size` bytes (>= head.size()).
void write_file(const std::filesystem::path& path, std::span<const uint8_t> head, uint64_t total_size, DataMode mode);

}  // namespace modelcat::kit
