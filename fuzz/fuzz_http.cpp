// libFuzzer target for what a server says in its response headers (Content-Range, Retry-After,
// RateLimit, Link) and for split-set names, which a listing or a URL hands over: each parser must
// return a value that keeps its promise, or nothing (a split name: a FormatError); anything else aborts.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "io/http_headers.hpp"
#include "locate/split_name.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

namespace {

void check(bool promise) {
    if (!promise) std::abort();
}

void content_range(std::string_view value) {
    const auto r = modelcat::io::http::parse_content_range(value);
    if (!r) return;
    if (r->satisfied) check(r->first <= r->last);
    if (r->total) {
        check(*r->total <= uint64_t(std::numeric_limits<int64_t>::max()));  // a size the catalogue can store
        if (r->satisfied) check(r->last < *r->total);
    }
}

void wait_seconds(std::string_view value) {
    if (const auto s = modelcat::io::http::parse_retry_after(value, 1'700'000'000)) check(std::isfinite(*s) && *s >= 0);
    const auto limit = modelcat::io::http::parse_ratelimit(value);
    for (const auto& s : {limit.reset_s, limit.window_s})
        if (s) check(std::isfinite(*s) && *s >= 0);
}

void split_set(const std::string& name) {
    try {
        const auto files = modelcat::locate::split_set_files(name);
        check(!files.empty() && files.size() <= modelcat::model::Limits::max_shards);
    } catch (const modelcat::model::FormatError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    content_range(text);
    wait_seconds(text);
    if (const auto next = modelcat::io::http::parse_link_next(text)) check(next->size() < text.size());
    split_set(text);
    return 0;
}
