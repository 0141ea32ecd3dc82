#include "report/html_text.hpp"

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

}  // namespace modelcat::report
