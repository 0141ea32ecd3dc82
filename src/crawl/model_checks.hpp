#pragma once
// The checks that the files read for a model form a whole: a split set's
// shards agree with their names and counts, a checkpoint's index with its shards.
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "crawl/file_record.hpp"
#include "crawl/plan.hpp"

namespace modelcat::crawl {

// An error that belongs to one file of a model: carries that file's location.
struct ModelError : std::runtime_error {
    ModelError(std::string loc, std::optional<uint64_t> off, const std::string& msg, std::string path = {})
        : std::runtime_error(msg), location(std::move(loc)), offset(off), json_path(std::move(path)) {}
    std::string location;
    std::optional<uint64_t> offset;
    std::string json_path;
};

// Checks the data files (in plan order). Throws ModelError when they do not form a whole.
void check_model_files(const ModelPlan& plan, std::span<const FileRecord> data_files);

}  // namespace modelcat::crawl
