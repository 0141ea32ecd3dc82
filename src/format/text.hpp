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

// A fast 64-bit content hash, dependency-free, good enough to show identical
// tokenizers and headers: FNV's xor-multiply shape applied to 8-byte words
// (several GB/s where byte-wise FNV-1a manages one), a final avalanche, and
// the length mixed in. Streaming: any split of the input gives the same digest.
class ContentHash {
public:
    void update(std::span<const uint8_t> bytes);
    void update_u64le(uint64_t v) {
        uint8_t b[8];
        for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
        update(b);
    }
    uint64_t digest() const;

private:
    void mix(uint64_t word) {
        h_ = (h_ ^ word) * 0x9e3779b97f4a7c15ull;
        h_ ^= h_ >> 29;
    }
    uint64_t h_ = 0xcbf29ce484222325ull, pending_ = 0, length_ = 0;
    unsigned fill_ = 0;  // bytes in pending_
};

std::string hex64(uint64_t v);

}  // namespace modelcat::format
