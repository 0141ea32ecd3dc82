#pragma once
// What an audit found, per tensor, per metadata key and in total: plain data, the rows
// that catalog/audit_store writes (audits, audit_tensors, audit_metadata) and the audit command prints.
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

// A GGUF metadata key against its source in the checkpoint's files (audit/metadata_audit.hpp).
enum class MetadataVerdict { equal, converted, differs, missing, not_checked };
const char* verdict_name(MetadataVerdict v);

struct MetadataResult {
    std::string key;          // the GGUF key (or tensor, for rope_freqs.weight)
    std::string source_path;  // file:JSON path, e.g. config.json:rope_scaling.factor
    std::string gguf_value, source_value;  // as shown: shortened, escaped; "" when that side has none
    MetadataVerdict verdict = MetadataVerdict::not_checked;
    bool critical = false;    // a differs or missing fails the audit (EOS, chat template, rope scaling, context); others warn
    std::string note;         // the transformation, the first difference, or why not checked
    bool fails() const { return critical && (verdict == MetadataVerdict::differs || verdict == MetadataVerdict::missing); }
    bool warns() const { return !critical && (verdict == MetadataVerdict::differs || verdict == MetadataVerdict::missing); }
};

struct AuditResult {
    std::string gguf_location, source_location;  // as located: local paths absolute, as the crawl stores them
    std::string source_first_file;               // the checkpoint's first shard, which links it to its catalogued model
    std::vector<TensorResult> tensors;
    std::vector<MetadataResult> metadata;
    uint64_t source_tensors = 0;
    uint64_t sample_rows = 0;  // 0: every row
    uint64_t bytes_read = 0, requests = 0;
    double seconds = 0;
    bool passed() const;
};

}  // namespace modelcat::model
