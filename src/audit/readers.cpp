#include "audit/readers.hpp"

namespace modelcat::audit {

io::SyncFile& AuditReaders::at(size_t i) {
    if (!open_[i]) {
        const AuditFile& f = in_.files[i];
        io::RangeReader* reader = &local_;
        if (is_remote(f.route.origin().location)) {
            if (!http_) http_ = std::make_unique<io::HttpReader>(in_.http);
            reader = http_.get();
        }
        open_[i] = std::make_unique<io::SyncFile>(*reader, f.route.origin(), f.size, f.first_bytes);
        open_[i]->set_route(f.route);
    }
    return *open_[i];
}

uint64_t AuditReaders::bytes_read() const {
    uint64_t n = 0;
    for (const auto& f : open_) n += f ? f->bytes_read() : 0;
    return n;
}

uint64_t AuditReaders::requests() const {
    uint64_t n = 0;
    for (const auto& f : open_) n += f ? f->requests() : 0;
    return n;
}

}  // namespace modelcat::audit
