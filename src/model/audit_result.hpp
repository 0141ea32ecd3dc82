#pragma once
// What an audit found, per tensor and in total: plain data, the rows that
// catalog/audit_store writes (audits, audit_tensors) and the audit command prints.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace modelcat::model {

enum class Verdict {
    exact, within_tolerance, mismatch, generated_ok, generated_mismatch, generated_unchecked,
    unmatched_source, unmatched_gguf, not_compared,
};
const char* verdict_name(Verdict v);
bool is_failure(Verdict v);  // mismatch, generated_mismatch, unmatched_*, not_compared

struct TensorResult {
    std::string gguf_tensor, source_tensor;  // "" when that side has none
    std::string gguf_type, source_dtype;
    std::string transform;  // e.g. "permute_q", "bf16->f32", "tied", comma-separated; "" for none
    Verdict verdict = Verdict::not_compared;
    uint64_t elements = 0, compared = 0, mismatches = 0;
    std::optional<uint64_t> first_mismatch_row, first_mismatch_col;  // in the source tensor
    std::optional<double> max_abs_error, rmse, nmse, cosine;
    std::string message;  // what failed, for printing
};

struct AuditResult {
    std::string gguf_location, source_location;
    std::vector<TensorResult> tensors;
    uint64_t source_tensors = 0;
    uint64_t sample_rows = 0;  // 0: every row
    uint64_t bytes_read = 0, requests = 0;
    double seconds = 0;
    bool passed() const;
};

}  // namespace modelcat::model
