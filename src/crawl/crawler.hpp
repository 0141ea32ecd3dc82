#pragma once
// A batch crawl: inputs are planned into models (single files, split GGUF
// sets, safetensors checkpoints) and each model is read and catalogued on its
// own, so one bad model costs only itself.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "crawl/header_reader.hpp"

namespace modelcat::crawl {

struct ModelOutcome {
    std::string location;            // the model's first file, or the input that failed
    bool ok = false;
    std::optional<uint64_t> offset;  // failures: where in `location`, when known
    std::string message;             // failures: the reason
    uint64_t files = 0, tensors = 0, bytes_read = 0, requests = 0, warnings = 0;
};

struct CrawlOptions {
    HeaderReadOptions read;
    std::function<void(const ModelOutcome&)> on_model;  // called after each model or failed input
};

struct CrawlReport {
    int64_t crawl_id = 0;
    catalog::CrawlTotals totals;
    std::vector<ModelOutcome> failures;
};

CrawlReport run_crawl(catalog::Catalog& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options);

}  // namespace modelcat::crawl
