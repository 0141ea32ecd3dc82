#include "format/likely_cause.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace modelcat::format {

std::optional<std::string> likely_cause(std::span<const uint8_t> first_bytes) {
    std::string_view s(reinterpret_cast<const char*>(first_bytes.data()), first_bytes.size());
    const size_t lead = std::min(s.find_first_not_of(" \t\r\n"), s.size());
    std::string_view text = s.substr(lead);
    if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c == '\0'; }))
        return "the file starts with zeros: an unfinished or preallocated download?";
    if (text.starts_with("version https://git-lfs") || text.starts_with("vers"))
        return "a Git LFS pointer file, not the model: fetch it with `git lfs pull`";
    if (text.starts_with("<")) return "an HTML or XML page, probably a failed download saved under the model's name";
    if (text.starts_with("{")) return "a JSON document, perhaps a server's error response saved under the model's name";
    // eight bytes of text: no model starts so (a safetensors header length is under 2^27: its high bytes are zero)
    auto is_text = [](char c) { return (c >= ' ' && c < 0x7f) || c == '\t' || c == '\n' || c == '\r'; };
    if (s.size() >= 8 && std::all_of(s.begin(), s.begin() + 8, is_text)) return "a text file, not a model";
    return std::nullopt;
}

}  // namespace modelcat::format
