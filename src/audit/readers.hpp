#pragma once
// One audit worker's readers: a SyncFile per file of the audit (by
// AuditSides::files index), opened on first use, each starting where the
// header read left it (route, size, first bytes), over the worker's own
// SyncReads: local files inline, remote ones on an HTTP reader of its own.
#include <cstdint>
#include <memory>
#include <vector>

#include "audit/sides.hpp"
#include "io/sync_file.hpp"
#include "locate/sync_reads.hpp"

namespace modelcat::audit {

class AuditReaders {
public:
    explicit AuditReaders(const AuditSides& sides) : sides_(sides), reads_(sides.access, sides.budgets), open_(sides.files.size()) {}
    io::SyncFile& at(size_t i);
    uint64_t bytes_read() const;
    uint64_t requests() const;

private:
    const AuditSides& sides_;
    locate::SyncReads reads_;
    std::vector<std::unique_ptr<io::SyncFile>> open_;
};

}  // namespace modelcat::audit
