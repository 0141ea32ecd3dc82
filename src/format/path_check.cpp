#include "format/path_check.hpp"

namespace modelcat::format {

std::optional<std::string> escapes_folder(std::string_view name) {
    if (name.empty()) return "empty";
    if (name.front() == '/') return "absolute";
    if (name.find('\0') != std::string_view::npos) return "a NUL byte: the file opened would be the name cut short there";
    if (name.find("://") != std::string_view::npos) return "a URL";
    if (name.find('\\') != std::string_view::npos) return "a backslash";
    if (name.find('%') != std::string_view::npos) return "a percent-escape";  // a URL would decode it (%2e%2e is "..")
    if (name.find_first_of("?#") != std::string_view::npos) return "a query or fragment character";
    for (size_t start = 0;;) {
        size_t end = name.find('/', start);
        std::string_view part = name.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (part.empty()) return "an empty path component";
        if (part == "." || part == "..") return "a '" + std::string(part) + "' component";
        if (end == std::string_view::npos) return std::nullopt;
        start = end + 1;
    }
}

}  // namespace modelcat::format
