#pragma once
// The conversion audit: pairs a GGUF's tensors with its source checkpoint's
// by the name map, applies the converter's transforms to the source, compares
// every pair (in parallel, streaming) and checks the generated rope_freqs.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "io/rate_budget.hpp"
#include "locate/access.hpp"
#include "model/audit_result.hpp"
#include "model/error.hpp"

namespace modelcat::audit {

struct AuditOptions {
    // Source kind -> GGUF kind for the GGUF's general.architecture (tensor_name_map's rows).
    std::function<std::map<std::string, std::string>(const std::string& architecture)> name_map;
    uint64_t sample_rows = 0;                     // 0: every row
    unsigned jobs = 2;                            // tensors compared at once
    std::function<void(uint64_t done, uint64_t total)> on_progress;  // tensor bytes compared so far
    locate::HttpAccess access;                    // remote inputs: read as the crawl reads them
    std::vector<io::BudgetState> known_budgets;   // what servers announced to earlier runs
};

// Throws io::IoError or model::FormatError when an input cannot be read.
model::AuditResult run_audit(const std::string& gguf, const std::string& source, const AuditOptions& options);

}  // namespace modelcat::audit
