#pragma once
// The promises the parsers of a server's header values (Content-Range, Retry-After, RateLimit,
// Link) and of split-set names keep for any text at all, checked by fuzz_http and by the corpus
// replay test: a value that keeps its promise, or nothing (a split name: a FormatError).
// Header-only so that the plain test build needs no fuzz library.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "io/http_headers.hpp"
#include "locate/split_name.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

namespace modelcat::fuzzcheck {

// What the parsers broke of their promises for `text` (empty: none).
inline std::vector<std::string> check_http_input(const std::string& text) {
    std::vector<std::string> broken;
    auto promise = [&](bool kept, const char* what) {
        if (!kept) broken.emplace_back(what);
    };
    if (const auto r = io::http::parse_content_range(text)) {
        if (r->satisfied) promise(r->first <= r->last, "Content-Range: first past last");
        if (r->total) {
            promise(*r->total <= uint64_t(std::numeric_limits<int64_t>::max()), "Content-Range: a total no catalogue can store");
            if (r->satisfied) promise(r->last < *r->total, "Content-Range: a range past its total");
        }
    }
    const auto finite_wait = [](const std::optional<double>& s) { return !s || (std::isfinite(*s) && *s >= 0); };
    promise(finite_wait(io::http::parse_retry_after(text, 1'700'000'000)), "Retry-After: not a finite wait");
    const io::http::RateLimit limit = io::http::parse_ratelimit(text);
    promise(finite_wait(limit.reset_s) && finite_wait(limit.window_s), "RateLimit: not a finite wait");
    if (const auto next = io::http::parse_link_next(text)) promise(next->size() < text.size(), "Link: a URL longer than the header");
    try {
        const auto files = locate::split_set_files(text);
        promise(!files.empty() && files.size() <= model::Limits::max_shards, "split name: no file, or more than max_shards");
    } catch (const model::FormatError&) {
    }
    return broken;
}

}  // namespace modelcat::fuzzcheck
