#include "model/content_hash.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace modelcat::model {

namespace {

uint64_t load_word(const uint8_t* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);  // little-endian hosts only, as everywhere in modelcat
    return w;
}

}  // namespace

// Completes a word left over from the last call; returns the bytes it took.
size_t ContentHash::fill(std::span<const uint8_t> bytes) {
    size_t i = 0;
    while (fill_ != 0 && i < bytes.size()) {
        pending_ |= uint64_t{bytes[i++]} << (8 * fill_);
        if (++fill_ == 8) {
            mix(pending_);
            pending_ = 0;
            fill_ = 0;
        }
    }
    return i;
}

// Mixes the whole words from `i` on and keeps the rest for the next call.
void ContentHash::words_and_rest(std::span<const uint8_t> bytes, size_t i) {
    for (; i + 8 <= bytes.size(); i += 8) mix(load_word(bytes.data() + i));
    for (; i < bytes.size(); ++i) pending_ |= uint64_t{bytes[i]} << (8 * fill_++);
}

void ContentHash::update(std::span<const uint8_t> bytes) {
    length_ += bytes.size();
    words_and_rest(bytes, fill(bytes));
}

// Each hash is one chain of multiplies: stepping two through their words together runs them side by side.
void ContentHash::update_both(ContentHash& a, ContentHash& b, std::span<const uint8_t> bytes) {
    a.length_ += bytes.size();
    b.length_ += bytes.size();
    size_t ia = a.fill(bytes), ib = b.fill(bytes);
    const size_t common = (bytes.size() - std::max(ia, ib)) / 8;
    uint64_t ha = a.h_, hb = b.h_;  // in registers: a and b might be one object, for all the compiler knows
    for (size_t k = 0; k < common; ++k, ia += 8, ib += 8) {
        ha = mixed(ha, load_word(bytes.data() + ia));
        hb = mixed(hb, load_word(bytes.data() + ib));
    }
    a.h_ = ha;
    b.h_ = hb;
    a.words_and_rest(bytes, ia);
    b.words_and_rest(bytes, ib);
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

}  // namespace modelcat::model
