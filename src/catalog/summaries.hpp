#pragma once
// What the views would otherwise recompute over every tensor, written once per
// model at crawl time (schema/006_scale.sql documents each column's rule).
#include <SQLiteCpp/Database.h>

#include <cstdint>

#include "catalog/catalog.hpp"

namespace modelcat::catalog {

// Rewrites the model's policy_layers rows (derived from `model`'s tensors) and
// its models.block_count, majority_type_id, majority_type_name and census
// (from its just-written census and metadata rows). Runs inside the caller's
// transaction, after the census rows are written.
void write_model_summaries(SQLite::Database& db, int64_t model_id, const ModelRecord& model);

}  // namespace modelcat::catalog
