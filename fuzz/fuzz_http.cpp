// libFuzzer target for what a server says in its response headers (Content-Range, Retry-After,
// RateLimit, Link) and for split-set names, which a listing or a URL hands over: a broken promise
// (fuzz/http_checks.hpp) or any other exception aborts, so libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/http_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!modelcat::fuzzcheck::check_http_input(std::string(reinterpret_cast<const char*>(data), size)).empty()) std::abort();
    return 0;
}
