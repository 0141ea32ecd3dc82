#pragma once
// Compares one GGUF tensor with its source tensor, streaming rows in chunks
// of bounded size: exact (bit for bit, after the exact widening or the
// round-to-nearest-even narrowing the converter applies) for float types,
// against a per-type NMSE ceiling for quantized types.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "audit/readers.hpp"
#include "audit/sides.hpp"
#include "io/io_error.hpp"
#include "model/audit_result.hpp"

namespace modelcat::audit {

// The highest NMSE (error energy / signal energy) a quantized type may show
// and pass; nullopt for float types, which must match exactly.
std::optional<double> nmse_ceiling(uint32_t ggml_type);

struct ToleranceRow {
    std::string_view type;
    double max_nmse;
};
std::span<const ToleranceRow> tolerance_table();

struct PairPlan {
    const TensorSpan* gguf = nullptr;
    const TensorSpan* source = nullptr;
    uint32_t permute_heads = 0;  // q/k: the converter's row permutation with this many heads
    std::string transform;       // the name transforms (permute_q, tied); the value transform is added
};

// `sample_rows` = 0 compares every row; otherwise that many GGUF rows at
// deterministic pseudo-random positions.
model::TensorResult compare_pair(const PairPlan& plan, AuditReaders& files, uint64_t sample_rows);

// A generated tensor's row before any check.
model::TensorResult generated_result(const TensorSpan& gguf);

// A generated tensor against values derived from the configuration, within
// `relative` error each.
model::TensorResult compare_generated(const TensorSpan& gguf, AuditReaders& files, std::span<const double> expected, double relative);

}  // namespace modelcat::audit
