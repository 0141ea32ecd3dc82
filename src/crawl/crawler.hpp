#pragma once
// A batch crawl: every input is read and catalogued on its own, so one bad
// file costs only itself.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "crawl/header_reader.hpp"

namespace modelcat::crawl {

struct FileOutcome {
    std::string location;
    bool ok = false;
    std::optional<uint64_t> offset;  // failures: where in the file, when known
    std::string message;             // failures: the reason
    uint64_t tensors = 0, bytes_read = 0, requests = 0, warnings = 0;
};

struct CrawlOptions {
    HeaderReadOptions read;
    std::function<void(const FileOutcome&)> on_file;  // called after each input
};

struct CrawlReport {
    int64_t crawl_id = 0;
    catalog::CrawlTotals totals;
    std::vector<FileOutcome> failures;
};

CrawlReport run_crawl(catalog::Catalog& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options);

}  // namespace modelcat::crawl
