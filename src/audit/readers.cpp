#include "audit/readers.hpp"

namespace modelcat::audit {

io::SyncFile& AuditReaders::at(size_t i) {
    if (!open_[i]) {
        const AuditFile& f = sides_.files[i];
        open_[i] = std::make_unique<io::SyncFile>(reads_.reopen(f.route, f.size, f.first_bytes));
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
