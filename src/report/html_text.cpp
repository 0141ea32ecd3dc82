#include "report/html_text.hpp"

#include <algorithm>
#include <cstdio>

#include "model/utf8.hpp"

namespace modelcat::report {

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        size_t n = model::utf8_sequence_at(s, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
            continue;
        }
        switch (s[i]) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out.append(s.substr(i, n));
        }
        i += n;
    }
    return out;
}

std::string decimal(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string gib_text(std::optional<int64_t> bytes) {
    return bytes ? decimal(static_cast<double>(*bytes) / (1024.0 * 1024 * 1024), 2) : "";
}

size_t text_length(std::string_view s) {
    size_t n = 0;
    for (size_t i = 0; i < s.size(); ++n) i += std::max<size_t>(1, model::utf8_sequence_at(s, i));
    return n;
}

std::string elide_middle(std::string_view s, size_t max, std::optional<size_t> head_chars) {
    if (max < 3 || text_length(s) <= max) return std::string(s);
    size_t head = std::min(head_chars.value_or((max - 1) / 2), max - 1), tail = max - 1 - head, i = 0, n = 0;
    for (; n < head; ++n) i += std::max<size_t>(1, model::utf8_sequence_at(s, i));
    std::string out(s.substr(0, i));
    size_t skip = text_length(s) - tail;  // code points before the tail
    for (; n < skip; ++n) i += std::max<size_t>(1, model::utf8_sequence_at(s, i));
    return out + "\u2026" + std::string(s.substr(i));
}

}  // namespace modelcat::report
