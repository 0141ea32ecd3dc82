#include "crawl/header_reader.hpp"

#include <algorithm>
#include <cstring>

#include "format/gguf.hpp"
#include "format/safetensors.hpp"

namespace modelcat::crawl {

namespace {

// safetensors has no magic: a plausible length followed by '{' will do, or
// the file's own name when the header is too broken to look plausible.
bool looks_like_safetensors(std::span<const uint8_t> b, uint64_t size, const std::string& location) {
    if (location.ends_with(".safetensors")) return true;
    if (b.size() < 9) return false;
    uint64_t n;
    std::memcpy(&n, b.data(), 8);  // the format is little-endian, as is every host we build for
    return n <= size - 8 && b[8] == '{';
}

}  // namespace

format::FileHeader read_header(io::ByteSource& source, const HeaderReadOptions& options) {
    const uint64_t size = source.size();
    std::vector<uint8_t> buf;
    source.read(0, std::min(options.first_read, size), buf);
    // a .gguf name is trusted so that a bad magic is reported as such
    auto parse = format::looks_like_gguf(buf) || source.location().ends_with(".gguf") ? &format::parse_gguf
                 : looks_like_safetensors(buf, size, source.location())
                     ? &format::parse_safetensors
                     : nullptr;
    if (!parse) {
        std::string shown;
        for (size_t i = 0; i < std::min<size_t>(buf.size(), 8); ++i) {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%02x ", buf[i]);
            shown += hex;
        }
        throw format::FormatError(0, "unknown format: neither GGUF magic nor a safetensors header (first bytes " +
                                         (shown.empty() ? std::string("none, empty file") : shown.substr(0, shown.size() - 1)) + ")");
    }
    while (true) {
        format::ParseResult r = parse(buf, size, options.limits);
        if (auto* h = std::get_if<format::FileHeader>(&r)) return std::move(*h);
        const auto& more = std::get<format::NeedMore>(r);
        uint64_t target = std::min(size, std::max(more.min_bytes, more.estimated_total));
        if (target <= buf.size())  // cannot happen with a correct parser; never loop forever
            throw format::FormatError(buf.size(), "parser asked for " + std::to_string(target) +
                                                      " bytes but already has " + std::to_string(buf.size()));
        source.read(buf.size(), target - buf.size(), buf);
    }
}

}  // namespace modelcat::crawl
