#pragma once
// A safetensors writer for tests: compact JSON header as the safetensors
// library emits it, padded with spaces, plus a raw escape hatch.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "file_out.hpp"

namespace modelcat::kit {

struct SafetensorsEntry {
    std::string name;
    std::string dtype;
    std::vector<uint64_t> shape;
    uint64_t begin;  // data_offsets, relative to the end of the header
    uint64_t end;
};

// Storage bits per element (F4 = 4, F6_* = 6, C64 = 64), or nullopt if unknown.
std::optional<uint32_t> dtype_bits(std::string_view dtype);

class SafetensorsWriter {
public:
    // Placed right after the furthest entry so far; throws for an unknown dtype.
    void add(std::string name, std::string dtype, std::vector<uint64_t> shape);
    // Explicit data_offsets, unchecked: any dtype, overlaps, gaps, begin > end.
    void add_at(std::string name, std::string dtype, std::vector<uint64_t> shape, uint64_t begin, uint64_t end);

    // __metadata__ is absent until one of these is called.
    void set_metadata(std::vector<std::pair<std::string, std::string>> kv);
    void set_metadata_null();

    // Pad the JSON with spaces to a multiple of m (default 8; 1 = no padding)...
    void pad_to_multiple(uint64_t m);
    // ...or to exactly n bytes; header_length() and header() throw if the JSON is longer.
    void pad_to_length(uint64_t n);

    const std::vector<SafetensorsEntry>& entries() const { return entries_; }
    std::string json() const;             // unpadded
    uint64_t header_length() const;       // the padded JSON length stored in the first 8 bytes
    std::vector<uint8_t> header() const;  // 8-byte little-endian length + padded JSON
    uint64_t data_bytes() const;          // furthest data_offsets end
    uint64_t file_size() const { return 8 + header_length() + data_bytes(); }
    void write(const std::filesystem::path& path, DataMode mode = DataMode::sparse) const;

private:
    enum class Metadata { absent, null, map };
    std::vector<SafetensorsEntry> entries_;
    Metadata metadata_kind_ = Metadata::absent;
    std::vector<std::pair<std::string, std::string>> metadata_;
    uint64_t pad_multiple_ = 8;
    std::optional<uint64_t> pad_length_;
};

// A file whose header is `header_json` verbatim (its length as the prefix),
// for duplicate keys, invalid UTF-8, non-objects and the like.
void write_raw_safetensors(const std::filesystem::path& path, std::string_view header_json, uint64_t data_bytes,
                           DataMode mode = DataMode::sparse);

}  // namespace modelcat::kit
