#pragma once
// store_names: how the crawled stores name their models (schema/current.sql).
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/rows.hpp"

namespace modelcat::catalog {

// In one transaction: every name found by crawl `crawl_id`, linked to the model
// catalogued at its location (NULL when there is none); each model at a
// location of `model_names` renamed to its name there; and the names under
// `roots` that this crawl did not find, marked gone.
void write_store_names(SQLite::Database& db, int64_t crawl_id, const std::vector<model::StoreNameRow>& names,
                       const std::vector<std::pair<std::string, std::string>>& model_names,
                       const std::vector<std::string>& roots);

}  // namespace modelcat::catalog
