#pragma once
// Small text helpers shared by the parsers and the catalogue: JSON escaping,
// number formatting and the content hash of large arrays.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace modelcat::format {

// Appends s as a JSON string literal; invalid UTF-8 bytes become U+FFFD so
// the result is always valid JSON.
void append_json_string(std::string& out, std::string_view s);

// Shortest text that reads back as the same double; NaN/Inf become null.
std::string json_number(double v);

// "[4096,128256]"
std::string json_dims(const std::vector<uint64_t>& dims);

// FNV-1a 64: fast, dependency-free, good enough to show identical tokenizers.
class Fnv1a64 {
public:
    void update(std::span<const uint8_t> bytes) {
        for (uint8_t b : bytes) h_ = (h_ ^ b) * 0x100000001b3ull;
    }
    void update_u64le(uint64_t v) {
        uint8_t b[8];
        for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
        update(b);
    }
    uint64_t digest() const { return h_; }

private:
    uint64_t h_ = 0xcbf29ce484222325ull;
};

std::string hex64(uint64_t v);

}  // namespace modelcat::format
