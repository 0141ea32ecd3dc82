#include "locate/sync_reads.hpp"

#include <filesystem>

namespace modelcat::locate {

io::RangeReader& SyncReads::reader_for(const std::string& location) {
    if (!is_remote(location)) return local_;
    if (!http_) http_ = std::make_unique<io::HttpReader>(access_.reader_options(known_));
    return *http_;
}

io::SyncFile SyncReads::open(const std::string& location) {
    return io::SyncFile(reader_for(location), access_.request(location), std::nullopt, {},
                        [this](const io::RangeReply& r) { return access_.explain(r); });
}

io::SyncFile SyncReads::reopen(const io::ReadRoute& route, uint64_t size, std::vector<uint8_t> first_bytes) {
    io::SyncFile f(reader_for(route.origin().location), route.origin(), size, std::move(first_bytes),
                   [this](const io::RangeReply& r) { return access_.explain(r); });
    f.set_route(route);
    return f;
}

bool SyncLocator::exists(const std::string& location) const {
    std::error_code ec;
    return is_remote(location) || std::filesystem::exists(location, ec);
}

std::string SyncLocator::read_text(const std::string& location) const {
    io::SyncFile f = reads_.open(location);
    format::ByteBuffer bytes = f.read_whole();
    bytes_read_ += f.bytes_read(), requests_ += f.requests();
    return std::string(bytes.begin(), bytes.end());
}

}  // namespace modelcat::locate
