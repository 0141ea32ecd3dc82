#pragma once
// Compares one GGUF tensor with its source tensor, streaming rows in chunks
// of bounded size, always against the source's own values: exact for float
// and integer types (bit for bit, after the exact widening or the
// round-to-nearest-even narrowing the converter applies; a finite source value
// that became inf or NaN fails), against per-type NMSE ceilings for the whole
// tensor and for each block for quantized types.
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
