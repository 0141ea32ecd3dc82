#include "cli/terminal.hpp"

#include <algorithm>
#include <cstdio>

#include "model/utf8.hpp"

namespace modelcat::cli {

namespace {

// The code point of the valid UTF-8 sequence of n bytes at s[i].
char32_t code_point(std::string_view s, size_t i, size_t n) {
    static constexpr unsigned char kLeadBits[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    char32_t c = static_cast<unsigned char>(s[i]) & kLeadBits[n];
    for (size_t k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    return c;
}

// Characters that act unseen: C1 controls (U+009B is a CSI), and the format characters that reorder
// or hide text (Trojan Source): the bidirectional embeddings, overrides and isolates, the Arabic
// letter mark, the zero-width ones with LRM and RLM, the line and paragraph separators, the BOM.
bool acts_unseen(char32_t c) {
    return (c >= 0x80 && c <= 0x9f) || c == 0x061c || (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
}

// The character at s[i] (n bytes) as \uNNNN when it acts unseen; false, and nothing appended, otherwise.
bool append_unseen_escaped(std::string& out, std::string_view s, size_t i, size_t n) {
    if (n < 2) return false;
    const char32_t c = code_point(s, i, n);
    if (!acts_unseen(c)) return false;
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
    out += buf;
    return true;
}

// Controls as \xNN (newline and tab too when one_line), the characters that act unseen as \uNNNN,
// invalid UTF-8 as \xNN.
std::string escaped(std::string_view s, bool one_line) {
    std::string out;
    out.reserve(s.size());
    char buf[8];
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        size_t n = model::utf8_sequence_at(s, i);
        if (n == 0 || (n == 1 && ((c < 0x20 && (one_line || (c != '\n' && c != '\t'))) || c == 0x7f))) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
            ++i;
        } else if (append_unseen_escaped(out, s, i, n)) {
            i += n;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

}  // namespace

std::string terminal_safe(std::string_view s) { return escaped(s, false); }

std::string terminal_line(std::string_view s) { return escaped(s, true); }

std::string with_commas(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) out += (i && (digits.size() - i) % 3 == 0 ? "," : "") + digits.substr(i, 1);
    return out;
}

std::string json_terminal_safe(std::string_view json) {
    std::string out;
    out.reserve(json.size());
    for (size_t i = 0; i < json.size();) {
        const size_t n = std::max<size_t>(1, model::utf8_sequence_at(json, i));
        if (!append_unseen_escaped(out, json, i, n)) out.append(json.substr(i, n));
        i += n;
    }
    return out;
}

}  // namespace modelcat::cli
