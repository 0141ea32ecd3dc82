#pragma once
// Turning the files read for a model into a catalogued model: the checks
// that a split set or checkpoint is whole and consistent, then one
// transaction. Shared by local and remote crawls.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "crawl/plan.hpp"

namespace modelcat::crawl {

// An error that belongs to one file of a model: carries that file's location.
struct ModelError : std::runtime_error {
    ModelError(std::string loc, std::optional<uint64_t> off, const std::string& msg)
        : std::runtime_error(msg), location(std::move(loc)), offset(off) {}
    std::string location;
    std::optional<uint64_t> offset;
};

// Data files first, then the index and config.json.
std::vector<std::string> all_files(const ModelPlan& plan);

// Checks the files (data files in plan order, then index, then config) and
// stores them as one model. Throws ModelError when they do not form a whole.
void catalog_model(catalog::Catalog& catalog, int64_t crawl_id, const ModelPlan& plan, std::vector<catalog::FileRecord> files);

}  // namespace modelcat::crawl
