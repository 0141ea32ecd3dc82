#include "crawl/locator.hpp"

#include <filesystem>

#include "io/local_reader.hpp"
#include "io/sync_file.hpp"

namespace modelcat::crawl {

bool LocalLocator::exists(const std::string& location) const {
    std::error_code ec;
    return std::filesystem::exists(location, ec);
}

std::string LocalLocator::read_text(const std::string& location) const {
    io::LocalReader inline_reads(0);
    io::SyncFile file(inline_reads, io::RangeRequest{location});
    format::ByteBuffer bytes = file.read_whole();
    return std::string(bytes.begin(), bytes.end());
}

std::string sibling(const std::string& location, const std::string& name) { return parent(location) + "/" + name; }

std::string parent(const std::string& location) { return location.substr(0, location.rfind('/')); }

}  // namespace modelcat::crawl
