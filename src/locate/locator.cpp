#include "locate/locator.hpp"

#include <filesystem>
#include <string_view>

#include "io/sync_file.hpp"

namespace modelcat::locate {

bool LocalLocator::exists(const std::string& location) const {
    std::error_code ec;
    return std::filesystem::exists(location, ec);
}

std::string LocalLocator::read_text(const std::string& location) const { return io::read_local_text(location); }

bool is_remote(const std::string& location) {
    return location.starts_with("http://") || location.starts_with("https://") || location.starts_with("hf://") ||
           location.starts_with("hf-search:") || location.starts_with("ollama://");
}

std::string sibling(const std::string& location, const std::string& name) {
    return location.find('/') == std::string::npos ? name : parent(location) + "/" + name;
}

std::string parent(const std::string& location) { return location.substr(0, location.rfind('/')); }

}  // namespace modelcat::locate
