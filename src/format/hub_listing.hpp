#pragma once
// The Hugging Face Hub's listings: a repository's tree (GET /api/models/{repo}/tree/{rev}?recursive=true,
// a JSON array of {"type", "path", "size", "oid", "lfs": {"oid", "size"}}), and the models API's
// pages of repositories (GET /api/models?...&expand=lastModified&expand=sha, [{"id", "lastModified", "sha"}]).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/limits.hpp"

namespace modelcat::format {

struct HubTreeEntry {
    std::string path;
    uint64_t size = 0;
    std::optional<std::string> sha256;    // lfs.oid: the content's sha256 (LFS files only)
    std::optional<std::string> xet_hash;  // xetHash: the content's Xet hash (files in Xet storage)
};

// Files only (directories skipped); throws FormatError on malformed JSON or
// entries or more than `max_entries` of them, and refuses paths that escape the repository.
std::vector<HubTreeEntry> parse_hub_listing(std::span<const uint8_t> json, size_t max_entries = model::Limits::max_listing_entries);

// One repository on a models API page.
struct HubModelEntry {
    std::string repo;           // id: owner/name, each of [A-Za-z0-9._-] (the Hub's own rule)
    std::string last_modified;  // lastModified as given: 2024-07-23T14:48:36.000Z
    int64_t modified_ms = 0;    // the same, milliseconds since the epoch
    std::string sha;            // sha: the main revision's commit, 40 hex digits
};

// Throws FormatError on malformed JSON or entries, or more than `max_entries` of them.
std::vector<HubModelEntry> parse_hub_models(std::span<const uint8_t> json, size_t max_entries = model::Limits::max_listing_entries);

// YYYY-MM-DDTHH:MM:SS[.fff]Z as milliseconds since the epoch; nullopt for anything else.
std::optional<int64_t> iso_utc_ms(std::string_view text);

}  // namespace modelcat::format
