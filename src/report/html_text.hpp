#pragma once
// Text on its way into the HTML report: the one escape for content and quoted
// attributes (names come from untrusted files), and the elision of long names.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelcat::report {

// & < > " ' escaped, invalid UTF-8 replaced by U+FFFD.
std::string html_escape(std::string_view s);

// At most `max` characters (code points) of s: a longer s keeps its start (`head` characters, by
// default half) and its end around "…", which tell apart names and paths that share a middle
// (Meta-Llama-3.1-8B…Q4_K_M).
std::string elide_middle(std::string_view s, size_t max, std::optional<size_t> head = std::nullopt);

// v with `decimals` digits after the point ("4.58"); gib_text: bytes in GiB with two, "" for none.
std::string decimal(double v, int decimals);
std::string gib_text(std::optional<int64_t> bytes);

// Code points in s (an invalid byte counts as one: html_escape makes it one U+FFFD).
size_t text_length(std::string_view s);

}  // namespace modelcat::report
