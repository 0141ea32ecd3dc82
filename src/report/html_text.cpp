#include "report/html_text.hpp"

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

}  // namespace modelcat::report
