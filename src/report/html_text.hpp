#pragma once
// Text on its way into the HTML report: the one escape for content and quoted
// attributes (names come from untrusted files).
#include <string>
#include <string_view>

namespace modelcat::report {

// & < > " ' escaped, invalid UTF-8 replaced by U+FFFD.
std::string html_escape(std::string_view s);

}  // namespace modelcat::report
