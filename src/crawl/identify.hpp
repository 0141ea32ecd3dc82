#pragma once
// The one "unchanged?" rule: a stored file against what is known of it now.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/writer.hpp"
#include "crawl/crawled_file.hpp"
#include "locate/plan.hpp"

namespace modelcat::crawl {

enum class Sameness { same, changed, ask };  // ask: only a conditional request can tell

// Same content: equal sha256 when both are known; else equal Xet hash; else the local stat triple
// (size, mtime, inode, device); else the ETag. Nothing known now: ask the
// server with the stored ETag, or read again when there is none.
Sameness compare_identity(const catalog::StoredIdentity& stored, const std::optional<ContentIdentity>& now);

// A local file's identity now: its stat (and the digest a store names it by,
// trusted as its sha256), or nullopt when it is not a readable regular file.
std::optional<ContentIdentity> local_identity(const std::string& path, const std::optional<std::string>& digest = std::nullopt);

// The digest a plan's store names `location` by, if any.
std::optional<std::string> digest_of(const locate::ModelPlan& plan, const std::string& location);

// A whole model: unchanged when every file is catalogued ok under one model
// made of exactly these files, and each is the same. `to_ask` lists the files
// (with their stored ETags) that need a conditional request to tell.
struct ModelSameness {
    Sameness result = Sameness::changed;
    std::vector<std::pair<std::string, std::string>> to_ask;
};
ModelSameness compare_model(catalog::Writer& catalog, const std::vector<std::string>& files,
                            const std::function<std::optional<ContentIdentity>(const std::string&)>& identity_now);

}  // namespace modelcat::crawl
