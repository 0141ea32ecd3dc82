#pragma once
// The checks that the files read for a model form a whole: a split set's
// shards agree with their names and counts, a checkpoint's index with its shards.
#include <span>

#include "crawl/file_record.hpp"
#include "locate/plan.hpp"

namespace modelcat::crawl {

// Checks the data files (in plan order). Throws model::FormatError, in the file at fault, when they do not form a whole.
void check_model_files(const locate::ModelPlan& plan, std::span<const FileRecord> data_files);

}  // namespace modelcat::crawl
