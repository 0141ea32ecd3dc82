#pragma once
// The content hash of headers and large arrays, and its hex form.
#include <cstdint>
#include <span>
#include <string>

namespace modelcat::format {

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
