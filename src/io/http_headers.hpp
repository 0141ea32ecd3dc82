#pragma once
// Parsers for the few HTTP response headers the fetcher acts on. Pure
// functions over header values, so they are tested without a server.
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace modelcat::io::http {

// "bytes FIRST-LAST/TOTAL" (TOTAL may be "*"), or "bytes */TOTAL" on a 416. A TOTAL past
// 2^63-1 is no file's size (a catalogue stores sizes as signed 64-bit): the header is refused.
struct ContentRange {
    bool satisfied = true;  // false for "bytes */TOTAL"
    uint64_t first = 0, last = 0;
    std::optional<uint64_t> total;
};
std::optional<ContentRange> parse_content_range(std::string_view value);

// Retry-After: delay-seconds or an HTTP date; the seconds to wait from `now`
// (0 for a date in the past).
std::optional<double> parse_retry_after(std::string_view value, std::time_t now);

// The Hub's `RateLimit: "api";r=REMAINING;t=SECONDS` (also the IETF draft's
// `remaining=N, reset=SECONDS`): the seconds until the budget resets. The same
// parser reads `RateLimit-Policy: "fixed window";"api";q=QUOTA;w=WINDOW`.
struct RateLimit {
    std::string name;  // the last bare item, unquoted ("api"); empty when none
    std::optional<uint64_t> remaining, quota;
    std::optional<double> reset_s, window_s;
};
RateLimit parse_ratelimit(std::string_view value);

// Link: `<URL>; rel="next", <URL>; rel="prev"` -> the next page's URL.
std::optional<std::string> parse_link_next(std::string_view value);

}  // namespace modelcat::io::http
