#pragma once
// A model's rows, derived from the files read for it: a pure function, so
// what the catalogue stores can be checked without a database.
#include <string>
#include <vector>

#include "crawl/file_record.hpp"
#include "model/rows.hpp"

namespace modelcat::crawl {

// `files`: data files in model order, then the index and config.json.
model::ModelRows derive_model_rows(const std::string& name, const std::vector<FileRecord>& files);

}  // namespace modelcat::crawl
