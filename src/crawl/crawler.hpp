#pragma once
// A batch crawl: inputs are planned into models (single files, split GGUF
// sets, safetensors checkpoints), then every model goes through the one
// pipeline (crawl/pipeline.hpp): local files on a small thread pool, remote
// ones on one HTTP event loop. A nightly re-crawl costs a stat per file; one
// bad model costs only itself.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/writer.hpp"
#include "crawl/outcome.hpp"
#include "locate/access.hpp"
#include "locate/stores.hpp"
#include "model/header.hpp"
#include "model/limits.hpp"

namespace modelcat::crawl {

struct CrawlProgress {
    uint64_t done = 0, total = 0;  // models
    const catalog::CrawlTotals* totals = nullptr;
    double seconds = 0;
};

// When files vanish under a folder crawled whole. A folder that holds none of the files the
// catalogue had there (unmounted, emptied, another tree) or lost more than the limit is held
// back: none of its files is marked gone, and the crawl says why.
struct GoneGuard {
    bool allow = false;             // --allow-gone: mark whatever vanished
    std::optional<uint64_t> files;  // --max-gone N
    double fraction = 0.10;         // --max-gone P% (when `files` is not set), rounded up: 1 of 8 may go
    // The most files of `catalogued` under one folder that may be marked gone in one crawl.
    uint64_t limit(uint64_t catalogued) const;
};

struct CrawlOptions {
    model::Limits limits;
    bool force = false;  // re-read unchanged files too
    unsigned jobs = 16;  // models in flight; local reads in flight on that many threads (at most 8)
    uint64_t first_read_local = 64 << 10;          // local reads are cheap: start small, then read the estimate
    uint64_t first_read_gguf = 1 << 20;            // remote: a header under 1 MiB costs one request
    uint64_t first_read_safetensors = 128 << 10;   // remote: covers most safetensors headers; else one more
    locate::HttpAccess access;   // remote inputs: the Hub endpoint, the token, the HTTP caps and pace
    locate::StoreRoots stores;   // hf-cache:, ollama:, lmstudio: without a folder
    GoneGuard gone;
    bool full_listing = false;   // many-repository inputs: read every page of the models API (notices deleted repositories)
    std::function<void(const ModelOutcome&)> on_model;      // after each model or failed input
    std::function<void(const CrawlProgress&)> on_progress;  // after each model
    std::function<bool()> should_stop;  // asked before each model starts: true ends the crawl as interrupted
};

struct CrawlReport {
    int64_t crawl_id = 0;
    catalog::CrawlTotals totals;
    std::vector<ModelOutcome> failures;
    // Folders whose files were not marked gone: "ROOT: no files where N were catalogued (not mounted?)".
    std::vector<std::string> held_back;
    uint64_t inputs_missing = 0;  // local inputs that do not exist and were never catalogued: a typo, not a bad file
};

CrawlReport run_crawl(catalog::Writer& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options);

// What a crawl would do, without reading headers or writing the catalogue.
struct DryRunEntry {
    std::string name;
    std::vector<std::string> files;
    ModelStatus expected;  // added, changed, unchanged, or failed (planning problem)
    std::string message;
};
struct DryRun {
    std::vector<DryRunEntry> models;
    std::vector<std::string> gone;       // catalogued files the crawl would mark gone
    std::vector<std::string> held_back;  // folders whose vanished files it would not mark gone, and why
};
DryRun dry_run(catalog::Writer& catalog, const std::vector<std::string>& inputs, bool force, const locate::StoreRoots& stores,
               const GoneGuard& gone);

}  // namespace modelcat::crawl
