#include "format/header_assembler.hpp"

#include <algorithm>
#include <cstring>

#include "format/gguf.hpp"
#include "format/parse_result.hpp"
#include "format/safetensors.hpp"
#include "model/error.hpp"

namespace modelcat::format {

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

// Room for the whole header as estimated, so that the reads still to come land in this allocation:
// untouched capacity costs no page faults, each reallocation a fresh set (8 MB headers, eight at once).
void HeaderAssembler::make_room(uint64_t bytes) {
    if (bytes <= buf_.capacity()) return;
    ByteBuffer bigger;
    bigger.reserve(bytes);
    std::swap(bigger, buf_);
    buf_.append(bigger.data(), bigger.size());
}

std::optional<ByteRange> HeaderAssembler::add(std::span<const uint8_t> bytes, uint64_t file_size) {
    buf_.append(bytes.data(), bytes.size());
    return parse(file_size);
}

std::optional<ByteRange> HeaderAssembler::add(ByteBuffer&& bytes, uint64_t file_size) {
    if (buf_.empty()) std::swap(buf_, bytes);
    else buf_.append(bytes.data(), bytes.size());
    return parse(file_size);
}

std::optional<ByteRange> HeaderAssembler::parse(uint64_t file_size) {
    if (!parse_) {
        // a .gguf name is trusted so that a bad magic is reported as such
        parse_ = looks_like_gguf(buf_) || location_.ends_with(".gguf") ? &parse_gguf
                 : looks_like_safetensors(buf_, file_size, location_) ? &parse_safetensors
                                                                      : nullptr;
        if (!parse_)
            // its bytes are not shown: a file that is not a model may be anyone's secret
            throw model::FormatError(0, buf_.empty() ? "unknown format: an empty file"
                                                     : "unknown format: neither GGUF magic nor a safetensors header");
    }
    ParseResult r = parse_(buf_, file_size, options_.limits);
    if (auto* h = std::get_if<model::FileHeader>(&r)) {
        header_ = std::move(*h);
        return std::nullopt;
    }
    const auto& more = std::get<NeedMore>(r);
    uint64_t guess = options_.read_generously || more.likely_total == 0 ? more.estimated_total : more.likely_total;
    uint64_t target = std::min(file_size, std::max(more.min_bytes, guess));
    // An estimate that fell short twice may keep falling short (nested arrays it cannot see into): from then on each
    // read at least doubles what is here, so reads and re-parses stay logarithmic in the header's size.
    if (++shortfalls_ > 2) target = std::max(target, std::min({file_size, options_.limits.max_header_bytes, 2 * buf_.size()}));
    if (target <= buf_.size())  // cannot happen with a correct parser; never loop forever
        throw model::FormatError(buf_.size(), "parser asked for " + std::to_string(target) + " bytes but already has " +
                                                   std::to_string(buf_.size()));
    make_room(std::min(file_size, std::max(target, more.estimated_total)));
    return ByteRange{buf_.size(), target - buf_.size()};
}

}  // namespace modelcat::format
