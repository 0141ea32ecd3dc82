#pragma once
// A model's quantization policy, from its tensor rows: the type each tensor
// kind has on which layers, the hashes that tell two policies apart, and the
// type most tensors have. Pure functions: the crawl derives them once and the
// catalogue stores them, so no view computes them again.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/header.hpp"
#include "model/rows.hpp"

namespace modelcat::model {

// (policy_hash, shape_hash): two quants with the same (name, type) list share a
// policy; the layer-free form compares (kind, type, count) so different models compare by shape.
std::pair<std::string, std::string> policy_hashes(const std::vector<FileRow>& files);

// One row per (kind, type): how many tensors and on which layers, ascending.
std::vector<PolicyRow> policy_rows(const std::vector<FileRow>& files);

// The type held by the most tensors, F32 aside; ties: more parameters, then
// lower id, then name. nullptr when there is none.
const CensusRow* majority_type(const std::vector<CensusRow>& census);

// <architecture>.block_count as the first header holding it has it.
std::optional<MetadataValue> block_count(const std::vector<const FileHeader*>& headers,
                                         const std::optional<std::string>& architecture);

}  // namespace modelcat::model
