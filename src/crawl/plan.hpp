#pragma once
// Groups the files to read into models: a single file, a split GGUF set
// (name-00001-of-00003.gguf ...), or a sharded safetensors checkpoint
// (model.safetensors.index.json + shards + config.json).
#include <optional>
#include <string>
#include <vector>

#include "crawl/inputs.hpp"
#include "format/checkpoint.hpp"

namespace modelcat::crawl {

struct ModelPlan {
    enum class Kind { single_file, split_gguf, checkpoint };
    Kind kind = Kind::single_file;
    std::string name;
    std::vector<std::string> data_files;       // in model order; split sets list every expected shard
    std::optional<std::string> index;          // checkpoint: the index file
    std::optional<std::string> config;         // checkpoint: config.json beside it, when present
    std::optional<format::CheckpointIndex> parsed_index;
};

struct CrawlPlan {
    std::vector<ModelPlan> models;
    std::vector<InputProblem> problems;  // inputs or indexes that could not be planned
};

// A split GGUF shard's parts: "dir/name", 1-based number and count.
struct SplitName {
    std::string prefix;
    unsigned number = 0, count = 0;
};
std::optional<SplitName> parse_split_name(const std::string& location);
std::string split_shard_name(const std::string& prefix, unsigned number, unsigned count);

// What planning needs to know about locations, local or remote: whether a
// sibling exists, and the text of a (small) index file.
class Locator {
public:
    virtual ~Locator() = default;
    virtual bool exists(const std::string& location) const = 0;
    virtual std::string read_text(const std::string& location) const = 0;  // throws on failure
};

class LocalLocator final : public Locator {
public:
    bool exists(const std::string& location) const override;
    std::string read_text(const std::string& location) const override;
};

// "dir/name" beside a path or URL.
std::string sibling(const std::string& location, const std::string& name);

// The model name for a location: the Hub's owner/repo for .../owner/repo/resolve/<rev>/...
// URLs, else `fallback` (a file stem or a folder name).
std::string hub_repo_or(const std::string& location, const std::string& fallback);

CrawlPlan plan_crawl(const std::vector<std::string>& files, std::vector<InputProblem> problems, const Locator& locator);

}  // namespace modelcat::crawl
