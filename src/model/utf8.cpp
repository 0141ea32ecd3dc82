#include "model/error.hpp"
#include "model/utf8.hpp"

#include <algorithm>
#include <cstdio>

namespace modelcat::model {

namespace {
void append_hex_byte(std::string& out, unsigned char c) {
    char buf[5];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

constexpr std::string_view kEllipsis = "\xe2\x80\xa6";  // U+2026, one character

// Byte index of code point `n` of s (its size when s is shorter).
size_t utf8_offset(std::string_view s, size_t n) {
    size_t i = 0;
    for (; n > 0 && i < s.size(); --n) i += std::max<size_t>(1, utf8_sequence_at(s, i));
    return i;
}
}  // namespace

size_t utf8_length(std::string_view s) {
    size_t n = 0;
    for (size_t i = 0; i < s.size(); ++n) i += std::max<size_t>(1, utf8_sequence_at(s, i));
    return n;
}

std::string elide_middle(std::string_view s, size_t max, std::optional<size_t> head_chars) {
    const size_t length = utf8_length(s);
    if (length <= max) return std::string(s);
    if (max == 0) return "";
    const size_t head = std::min(head_chars.value_or((max - 1) / 2), max - 1), tail = max - 1 - head;
    return std::string(s.substr(0, utf8_offset(s, head))) + std::string(kEllipsis) + std::string(s.substr(utf8_offset(s, length - tail)));
}

std::string elide_end(std::string_view s, size_t max) {
    if (utf8_length(s) <= max) return std::string(s);
    if (max == 0) return "";
    return std::string(s.substr(0, utf8_offset(s, max - 1))) + std::string(kEllipsis);
}

size_t utf8_sequence_at(std::string_view s, size_t i) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
    if (n < 3) return n;
    auto c1 = static_cast<unsigned char>(s[i + 1]);
    bool bad_second = (c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f) || (c == 0xf0 && c1 < 0x90) ||
                      (c == 0xf4 && c1 > 0x8f);
    return bad_second ? 0 : n;
}

std::optional<size_t> first_invalid_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        size_t n = utf8_sequence_at(s, i);
        if (n == 0) return i;
        i += n;
    }
    return std::nullopt;
}

std::string quote_bytes(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        size_t n = utf8_sequence_at(s, i);
        if (n == 0) {
            append_hex_byte(out, static_cast<unsigned char>(s[i++]));
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::string escape_invalid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 16);
    for (size_t i = 0; i < s.size();) {
        size_t n = utf8_sequence_at(s, i);
        if (n == 0) {
            append_hex_byte(out, static_cast<unsigned char>(s[i++]));
        } else {
            if (s[i] == '\\') out += '\\';
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::string unescape_invalid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 >= s.size()) {
            out += s[i];
        } else if (s[i + 1] == '\\') {
            out += '\\';
            ++i;
        } else if (s[i + 1] == 'x' && i + 3 < s.size() && hex_digit(s[i + 2]) >= 0 && hex_digit(s[i + 3]) >= 0) {
            out += static_cast<char>(hex_digit(s[i + 2]) * 16 + hex_digit(s[i + 3]));
            i += 3;
        } else {
            out += s[i];
        }
    }
    return out;
}

void require_utf8(std::string_view s, uint64_t start, std::string_view what) {
    auto bad = first_invalid_utf8(s);
    if (!bad) return;
    std::string byte;
    append_hex_byte(byte, static_cast<unsigned char>(s[*bad]));
    throw FormatError(start + *bad, std::string(what) + " is not valid UTF-8 (byte " + byte + " at offset " +
                                        std::to_string(start + *bad) + "): '" + quote_bytes(s) + "'");
}

std::optional<Warning> escape_string_value(MetadataEntry& e) {
    auto* s = std::get_if<std::string>(&e.value);
    if (!s) return std::nullopt;
    auto bad = first_invalid_utf8(*s);
    if (!bad) return std::nullopt;
    std::string byte;
    append_hex_byte(byte, static_cast<unsigned char>((*s)[*bad]));
    std::string where = std::to_string(*bad) + " of " + std::to_string(s->size());
    *s = escape_invalid_utf8(*s);
    return Warning{e.offset, "key '" + e.key + "': string value is not valid UTF-8 (byte " + byte + " at " + where +
                                 "); stored escaped: invalid bytes as \\xNN, '\\' as '\\\\'"};
}

}  // namespace modelcat::model
