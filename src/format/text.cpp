#include "format/text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "format/utf8.hpp"

namespace modelcat::format {

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            size_t n = utf8_sequence_at(s, i);
            if (n == 0) {
                out += "\\ufffd";
                ++i;
            } else {
                out.append(s.substr(i, n));
                i += n;
            }
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
        ++i;
    }
    out += '"';
}

std::string json_number(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string json_dims(const std::vector<uint64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(dims[i]);
    }
    return s + "]";
}

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
