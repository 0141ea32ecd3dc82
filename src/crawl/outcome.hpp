#pragma once
// What became of a model in a crawl, and the one way a failure is described.
#include <cstdint>
#include <optional>
#include <string>

namespace modelcat::crawl {

// A model's status in a crawl: what happened, or (dry run) what would.
enum class ModelStatus { added, changed, unchanged, failed, gone };
const char* status_name(ModelStatus s);  // new, changed, unchanged, failed, gone

// Where and why an input failed: a byte offset in the file, or a path in a
// JSON document, or neither when nothing more precise is known.
struct Failure {
    std::string location;
    std::optional<uint64_t> offset;
    std::string json_path;
    std::string message;
    // "at weight_map.\"x\": reason" when a JSON path is known; else the reason.
    std::string reason() const;
    // "LOCATION: offset N: reason", the form printed and logged everywhere.
    std::string describe() const;
};

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
    std::optional<Failure> failure;
    uint64_t files = 0, tensors = 0, bytes_read = 0, requests = 0, warnings = 0;
    RequestCounts by_kind;
};

}  // namespace modelcat::crawl
