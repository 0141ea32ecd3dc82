#pragma once
// A batch crawl: inputs are planned into models (single files, split GGUF
// sets, safetensors checkpoints); each model is checked against what the
// catalogue knows, and read and catalogued on its own only when new or
// changed, so a nightly re-crawl costs a stat per file and one bad model costs
// only itself.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "crawl/header_reader.hpp"
#include "crawl/remote.hpp"

namespace modelcat::crawl {

enum class Verdict { added, changed, unchanged, failed, gone };
const char* verdict_name(Verdict v);

struct ModelOutcome {
    std::string location;            // the model's first file, or the input that failed
    Verdict verdict = Verdict::failed;
    std::optional<uint64_t> offset;  // failures: where in `location`, when known
    std::string message;             // failures: the reason
    uint64_t files = 0, tensors = 0, bytes_read = 0, requests = 0, warnings = 0;
};

struct CrawlProgress {
    uint64_t done = 0, total = 0;  // models
    const catalog::CrawlTotals* totals = nullptr;
    double seconds = 0;
};

struct CrawlOptions {
    HeaderReadOptions read;
    RemoteOptions remote;
    bool force = false;  // re-read unchanged files too
    std::function<void(const ModelOutcome&)> on_model;         // after each model or failed input
    std::function<void(const CrawlProgress&)> on_progress;     // after each model
};

struct CrawlReport {
    int64_t crawl_id = 0;
    catalog::CrawlTotals totals;
    std::vector<ModelOutcome> failures;
};

CrawlReport run_crawl(catalog::Catalog& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options);

// What a crawl would do, without reading headers or writing the catalogue.
struct PlannedModel {
    std::string name;
    std::vector<std::string> files;
    Verdict verdict;  // added, changed, unchanged, or failed (planning problem)
    std::string message;
};
std::vector<PlannedModel> dry_run(catalog::Catalog& catalog, const std::vector<std::string>& inputs, bool force);

}  // namespace modelcat::crawl
