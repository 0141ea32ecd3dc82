#pragma once
// What became of a model in a crawl.
#include <cstdint>
#include <optional>
#include <string>

#include "model/error.hpp"

namespace modelcat::crawl {

// A model's status in a crawl: what happened, or (dry run) what would.
enum class ModelStatus { added, changed, unchanged, failed, gone };
const char* status_name(ModelStatus s);  // new, changed, unchanged, failed, gone

// HTTP requests by the Hub budget they spend: API calls (listings), resolver
// calls (any URL with /resolve/, redirect-free), storage reads (everything else).
struct RequestCounts {
    uint64_t api = 0, resolver = 0, storage = 0;
    void add(const RequestCounts& o) {
        api += o.api;
        resolver += o.resolver;
        storage += o.storage;
    }
};

struct ModelOutcome {
    std::string location;  // the model's first file, or the input that failed
    ModelStatus status = ModelStatus::failed;
    std::optional<model::Failure> failure;
    uint64_t files = 0, tensors = 0, bytes_read = 0, requests = 0, warnings = 0;
    RequestCounts by_kind;
};

}  // namespace modelcat::crawl
