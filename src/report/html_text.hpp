#pragma once
// Text on its way into the HTML report: the one escape for content and quoted
// attributes (names come from untrusted files), and numbers as the page shows them.
// (Long names are elided by model::elide_middle, model/utf8.hpp.)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelcat::report {

// & < > " ' escaped, invalid UTF-8 replaced by U+FFFD.
std::string html_escape(std::string_view s);

// v with `decimals` digits after the point ("4.58"); gib_text: bytes in GiB with two, "" for none.
std::string decimal(double v, int decimals);
std::string gib_text(std::optional<int64_t> bytes);

}  // namespace modelcat::report
