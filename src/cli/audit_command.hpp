#pragma once
// `modelcat audit GGUF SOURCE`: runs the conversion audit, records it in the
// catalogue, prints the failures and the summary table.
#include <cstdint>
#include <string>

#include "cli/settings.hpp"

namespace modelcat::cli {

struct AuditFlags {
    std::string gguf, source;
    uint64_t sample_rows = 0;
    unsigned jobs = 2;
    AccessFlags access;  // --hf-endpoint, --token-file: remote inputs are read as the crawl reads them
};

// Exit status: 0 pass, 1 fail, 2 usage or I/O error.
int run_audit_command(const Settings& settings, const std::string& db_path, const AuditFlags& flags);

}  // namespace modelcat::cli
