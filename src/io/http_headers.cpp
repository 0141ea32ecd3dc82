#include "io/http_headers.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "io/curl_api.hpp"

namespace modelcat::io::http {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// The whole of `s` as a decimal number, or nothing.
std::optional<uint64_t> to_u64(std::string_view s) {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

bool iequals(std::string_view a, std::string_view b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) ==
                                                  std::tolower(static_cast<unsigned char>(y)); });
}

}  // namespace

std::optional<ContentRange> parse_content_range(std::string_view value) {
    value = trim(value);
    if (value.size() < 6 || !iequals(value.substr(0, 6), "bytes ")) return std::nullopt;
    value = trim(value.substr(6));
    size_t slash = value.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    std::string_view span = value.substr(0, slash), total = value.substr(slash + 1);
    ContentRange cr;
    if (total != "*") {
        cr.total = to_u64(total);
        if (!cr.total || *cr.total > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    }
    if (span == "*") {
        if (!cr.total) return std::nullopt;  // "bytes */*" says nothing
        cr.satisfied = false;
        return cr;
    }
    size_t dash = span.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    auto first = to_u64(span.substr(0, dash)), last = to_u64(span.substr(dash + 1));
    if (!first || !last || *first > *last || (cr.total && *last >= *cr.total)) return std::nullopt;
    cr.first = *first;
    cr.last = *last;
    return cr;
}

std::optional<double> parse_retry_after(std::string_view value, std::time_t now) {
    value = trim(value);
    if (auto seconds = to_u64(value)) return static_cast<double>(*seconds);
    std::time_t when = curl().getdate(std::string(value).c_str(), nullptr);
    if (when == -1) return std::nullopt;
    return when > now ? static_cast<double>(when - now) : 0.0;
}

RateLimit parse_ratelimit(std::string_view value) {
    RateLimit rl;
    while (!value.empty()) {
        size_t sep = value.find_first_of(";,");
        std::string_view item = trim(value.substr(0, sep));
        value = sep == std::string_view::npos ? std::string_view() : value.substr(sep + 1);
        size_t eq = item.find('=');
        if (eq == std::string_view::npos) {  // the policy name, e.g. "api" (after "fixed window" in a policy)
            if (item.size() >= 2 && item.front() == '"' && item.back() == '"') item = item.substr(1, item.size() - 2);
            if (!item.empty()) rl.name = std::string(item);
            continue;
        }
        std::string_view key = trim(item.substr(0, eq));
        auto number = to_u64(trim(item.substr(eq + 1)));
        if (!number) continue;
        if (key == "r" || iequals(key, "remaining")) rl.remaining = *number;
        if (key == "t" || iequals(key, "reset")) rl.reset_s = static_cast<double>(*number);
        if (key == "q" || iequals(key, "quota")) rl.quota = *number;
        if (key == "w" || iequals(key, "window")) rl.window_s = static_cast<double>(*number);
    }
    return rl;
}

std::optional<std::string> parse_link_next(std::string_view value) {
    size_t pos = 0;
    while ((pos = value.find('<', pos)) != std::string_view::npos) {
        size_t close = value.find('>', pos);
        if (close == std::string_view::npos) return std::nullopt;
        std::string_view url = value.substr(pos + 1, close - pos - 1);
        size_t next = value.find('<', close);
        std::string_view params = value.substr(close + 1, next == std::string_view::npos ? next : next - close - 1);
        while (!params.empty()) {
            size_t semi = params.find(';');
            std::string_view param = trim(params.substr(0, semi));
            params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
            if (iequals(param, "rel=\"next\"") || iequals(param, "rel=next")) return std::string(url);
        }
        pos = close;
    }
    return std::nullopt;
}

}  // namespace modelcat::io::http
