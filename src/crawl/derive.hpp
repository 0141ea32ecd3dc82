#pragma once
// The derive stage of one model: the checks that the files read for it form a
// whole (a split set's shards agree with their names and counts, a
// checkpoint's index with its shards), and the rows it is stored as. Pure
// functions, so what the catalogue stores can be checked without a database.
#include <span>
#include <string>
#include <vector>

#include "crawl/crawled_file.hpp"
#include "locate/plan.hpp"
#include "model/rows.hpp"

namespace modelcat::crawl {

// Checks the data files (in plan order). Throws model::FormatError, in the file at fault, when they do not form a whole.
void check_model_files(const locate::ModelPlan& plan, std::span<const CrawledFile> data_files);

// `files`: data files in model order, then the index and config.json.
model::ModelRows derive_model_rows(const std::string& name, const std::vector<CrawledFile>& files);

}  // namespace modelcat::crawl
