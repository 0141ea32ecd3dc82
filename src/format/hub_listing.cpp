#include "format/hub_listing.hpp"

#include <simdjson.h>

#include "format/json_document.hpp"
#include "format/path_check.hpp"
#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::format {

std::vector<HubTreeEntry> parse_hub_listing(std::span<const uint8_t> json, size_t max_entries) {
    simdjson::dom::parser parser;
    simdjson::dom::array entries;
    if (parse_json(parser, json, "Hub listing").get_array().get(entries)) throw model::FormatError::at_json_path("$", "Hub listing is not a JSON array");
    std::vector<HubTreeEntry> files;
    size_t i = 0;  // the entry's index, for error paths
    for (auto e : entries) {
        if (i == max_entries)
            throw model::FormatError::at_json_path("$", "Hub listing page has more than " + std::to_string(max_entries) + " entries (the cap)");
        std::string_view type, path;
        std::string at = std::to_string(i++);
        at.insert(at.begin(), '[');
        at += ']';
        if (e["type"].get_string().get(type) || e["path"].get_string().get(path))
            throw model::FormatError::at_json_path(at, "Hub listing entry has no string \"type\" and \"path\"");
        if (type != "file") continue;
        if (auto why = escapes_folder(path))
            throw model::FormatError::at_json_path(at + ".path", "Hub listing path '" + std::string(path) + "' escapes the repository (" + *why + ")");
        HubTreeEntry f;
        f.path = std::string(path);
        if (e["size"].get_uint64().get(f.size))
            throw model::FormatError::at_json_path(at + ".size", "Hub listing entry '" + f.path + "' has no non-negative \"size\"");
        std::string_view oid;
        // a gated repo masks hashes with '*': unknown, not a different content
        auto unmasked = [](std::string_view v) { return v.find('*') == std::string_view::npos; };
        if (e["lfs"]["oid"].get_string().get(oid) == simdjson::SUCCESS && unmasked(oid)) f.sha256 = std::string(oid);
        std::string_view xet;
        if (e["xetHash"].get_string().get(xet) == simdjson::SUCCESS && unmasked(xet)) f.xet_hash = std::string(xet);
        files.push_back(std::move(f));
    }
    return files;
}

}  // namespace modelcat::format
