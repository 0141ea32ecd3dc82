#include "cli/terminal.hpp"

#include <cstdio>

#include "model/utf8.hpp"

namespace modelcat::cli {

namespace {

// Controls as \xNN (newline and tab too when one_line), C1 as \u00NN, invalid UTF-8 as \xNN.
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
        } else if (n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) {
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(s[i + 1]));
            out += buf;
            i += 2;
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

std::string json_without_c1(std::string_view json) {
    std::string out;
    out.reserve(json.size());
    char buf[8];
    for (size_t i = 0; i < json.size(); ++i) {
        if (json[i] == '\xc2' && i + 1 < json.size() && static_cast<unsigned char>(json[i + 1]) < 0xa0 &&
            static_cast<unsigned char>(json[i + 1]) >= 0x80) {
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(json[++i]));
            out += buf;
        } else {
            out += json[i];
        }
    }
    return out;
}

}  // namespace modelcat::cli
