#include "format/content_hash.hpp"

#include <cstdio>
#include <cstring>

namespace modelcat::format {

void ContentHash::update(std::span<const uint8_t> bytes) {
    length_ += bytes.size();
    size_t i = 0;
    while (fill_ != 0 && i < bytes.size()) {  // finish a word left over from the last call
        pending_ |= uint64_t{bytes[i++]} << (8 * fill_);
        if (++fill_ == 8) {
            mix(pending_);
            pending_ = 0;
            fill_ = 0;
        }
    }
    for (; i + 8 <= bytes.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, bytes.data() + i, 8);  // little-endian hosts only, as everywhere in modelcat
        mix(w);
    }
    for (; i < bytes.size(); ++i) pending_ |= uint64_t{bytes[i]} << (8 * fill_++);
}

uint64_t ContentHash::digest() const {
    uint64_t h = (h_ ^ pending_) * 0x9e3779b97f4a7c15ull;
    h ^= length_;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

std::string hex64(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

}  // namespace modelcat::format
