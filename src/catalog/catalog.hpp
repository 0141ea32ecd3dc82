#pragma once
// The SQLite catalogue: the only code that writes the database. Each model is
// written in one transaction, so a file is catalogued whole or not at all.
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/header.hpp"

namespace modelcat::catalog {

enum class FileRole { data, index, config };

// One physical file as read by the crawler.
struct FileRecord {
    std::string location;
    FileRole role = FileRole::data;
    format::FileHeader header;
    uint64_t bytes_read = 0;
    uint64_t requests = 0;
    double read_ms = 0;
    std::optional<int64_t> mtime_ns;
};

// One catalogued artifact and its files, first data file first.
struct ModelRecord {
    std::string name;
    std::vector<FileRecord> files;
};

struct CrawlTotals {
    uint64_t files_ok = 0, files_failed = 0, tensors = 0, bytes_read = 0, requests = 0;
    double seconds = 0;
};

// The schema version this build creates and understands.
int schema_version();

class Catalog {
public:
    // Opens (creating if needed) and migrates the database at `path`.
    explicit Catalog(const std::string& path);

    int64_t begin_crawl(const std::vector<std::string>& inputs);
    void finish_crawl(int64_t crawl_id, const CrawlTotals& totals);

    // Replaces whatever was catalogued at the model's location; returns model_id.
    int64_t store_model(int64_t crawl_id, const ModelRecord& model);

    // Records a failed input; a file catalogued before is kept and marked stale.
    void record_error(int64_t crawl_id, const std::string& location, std::optional<uint64_t> offset,
                      const std::string& message);

    SQLite::Database& db() { return db_; }

private:
    void migrate();
    SQLite::Database db_;
};

}  // namespace modelcat::catalog
