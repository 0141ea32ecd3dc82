#pragma once
// One physical file as the crawl read it, and what identifies its content:
// built in one place from the parsed header and the replies that carried it.
#include <cstdint>
#include <optional>
#include <string>

#include "crawl/outcome.hpp"
#include "io/range_reader.hpp"
#include "locate/remote_plan.hpp"
#include "model/header.hpp"

namespace modelcat::crawl {

enum class FileRole { data, index, config, manifest };
const char* role_name(FileRole role);

// What tells a file changed without reading it: the stat triple (local),
// the ETag or the content's sha256 (remote).
struct ContentIdentity {
    uint64_t size = 0;
    std::optional<io::FileStat> stat;
    std::optional<std::string> etag, sha256, xet_hash;
};

// A remote file's answer, as recorded.
struct RemoteAnswer {
    std::string etag, last_modified, final_url;
    std::optional<std::string> revision;
    long http_status = 0;
};

struct ReadCost {
    uint64_t bytes = 0, requests = 0;
    locate::RequestCounts by_kind;
    double ms = 0;
    void add(const io::RangeReply& r);
};

struct CrawledFile {
    std::string location;
    FileRole role = FileRole::data;
    model::FileHeader header;
    ReadCost cost;
    ContentIdentity identity;
    std::optional<RemoteAnswer> remote;
};

// The record of a file whose header was parsed from `last` (the final reply).
CrawledFile crawled_file(const std::string& location, FileRole role, model::FileHeader header, const ReadCost& cost,
                       const io::RangeReply& last, const locate::ListingEntry* listed);

// The record of a side file read whole in `reply` (index.json, config.json, an
// Ollama manifest), with the metadata it holds.
CrawledFile crawled_side_file(const std::string& location, FileRole role, model::Format format, const io::RangeReply& reply,
                       std::vector<model::MetadataEntry> metadata, const locate::ListingEntry* listed);

}  // namespace modelcat::crawl
