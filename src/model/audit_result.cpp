#include "model/audit_result.hpp"

#include <algorithm>

namespace modelcat::model {

const char* verdict_name(Verdict v) {
    switch (v) {
        case Verdict::exact: return "exact";
        case Verdict::within_tolerance: return "within_tolerance";
        case Verdict::mismatch: return "mismatch";
        case Verdict::generated_ok: return "generated_ok";
        case Verdict::generated_mismatch: return "generated_mismatch";
        case Verdict::generated_unchecked: return "generated_unchecked";
        case Verdict::unmatched_source: return "unmatched_source";
        case Verdict::unmatched_gguf: return "unmatched_gguf";
        case Verdict::not_compared: return "not_compared";
    }
    return "?";
}

const char* verdict_name(MetadataVerdict v) {
    switch (v) {
        case MetadataVerdict::equal: return "equal";
        case MetadataVerdict::converted: return "converted";
        case MetadataVerdict::differs: return "differs";
        case MetadataVerdict::missing: return "missing";
        case MetadataVerdict::not_checked: return "not_checked";
    }
    return "?";
}

bool is_failure(Verdict v) {
    return v == Verdict::mismatch || v == Verdict::generated_mismatch || v == Verdict::unmatched_source ||
           v == Verdict::unmatched_gguf || v == Verdict::not_compared;
}

bool AuditResult::passed() const {
    return std::none_of(tensors.begin(), tensors.end(), [](const TensorResult& t) { return is_failure(t.verdict); }) &&
           std::none_of(metadata.begin(), metadata.end(), [](const MetadataResult& m) { return m.fails(); });
}

}  // namespace modelcat::model
