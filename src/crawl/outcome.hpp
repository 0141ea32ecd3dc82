#pragma once
// What became of a model in a crawl.
#include <cstdint>
#include <optional>
#include <string>

#include "locate/hub.hpp"
#include "model/error.hpp"

namespace modelcat::crawl {

// A model's status in a crawl: what happened, or (dry run) what would. new_ is "new"
// (a keyword otherwise): not catalogued before, as crawls.files_new and model_events say.
enum class ModelStatus { new_, changed, unchanged, failed, gone };
const char* status_name(ModelStatus s);  // new, changed, unchanged, failed, gone

struct ModelOutcome {
    std::string location;  // the model's first file, or the input that failed
    ModelStatus status = ModelStatus::failed;
    std::optional<model::Failure> failure;
    uint64_t files = 0, tensors = 0, bytes_read = 0, requests = 0, warnings = 0;
    locate::RequestCounts by_kind;
};

}  // namespace modelcat::crawl
