#include "crawl/locator.hpp"

#include <filesystem>

#include "io/io_error.hpp"
#include "io/local_file.hpp"
#include "io/local_reader.hpp"

namespace modelcat::crawl {

bool LocalLocator::exists(const std::string& location) const {
    std::error_code ec;
    return std::filesystem::exists(location, ec);
}

std::string LocalLocator::read_text(const std::string& location) const {
    io::LocalFile f(location);
    if (f.size() > io::kMaxWholeFileBytes)
        throw io::IoError(location + ": " + std::to_string(f.size()) + " bytes is more than the cap of " +
                          std::to_string(io::kMaxWholeFileBytes) + " for a JSON file");
    io::ByteBuffer bytes;
    f.read(0, f.size(), bytes);
    return std::string(bytes.begin(), bytes.end());
}

std::string sibling(const std::string& location, const std::string& name) { return parent(location) + "/" + name; }

std::string parent(const std::string& location) { return location.substr(0, location.rfind('/')); }

}  // namespace modelcat::crawl
