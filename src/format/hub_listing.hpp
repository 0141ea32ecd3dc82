#pragma once
// The Hugging Face Hub's tree listing (GET /api/models/{repo}/tree/{rev}?recursive=true):
// a JSON array of {"type", "path", "size", "oid", "lfs": {"oid", "size"}}.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
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

}  // namespace modelcat::format
