#pragma once
// One audit worker's readers: a SyncFile per file of the audit (by
// AuditInputs::files index), opened on first use, each starting where the
// header read left it (size, first bytes, route), over the worker's own
// readers: local files inline, remote ones on an HTTP reader of its own.
#include <cstdint>
#include <memory>
#include <vector>

#include "audit/inputs.hpp"
#include "io/http_reader.hpp"
#include "io/local_reader.hpp"
#include "io/sync_file.hpp"

namespace modelcat::audit {

class AuditReaders {
public:
    explicit AuditReaders(const AuditInputs& in) : in_(in), open_(in.files.size()) {}
    io::SyncFile& at(size_t i);
    uint64_t bytes_read() const;
    uint64_t requests() const;

private:
    const AuditInputs& in_;
    io::LocalReader local_{0};
    std::unique_ptr<io::HttpReader> http_;
    std::vector<std::unique_ptr<io::SyncFile>> open_;
};

}  // namespace modelcat::audit
