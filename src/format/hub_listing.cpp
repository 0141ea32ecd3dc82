#include "format/hub_listing.hpp"

#include <simdjson.h>

#include "format/header.hpp"

namespace modelcat::format {

std::vector<HubFile> parse_hub_listing(std::span<const uint8_t> json) {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto err = parser.parse(reinterpret_cast<const char*>(json.data()), json.size()).get(root))
        throw FormatError(0, std::string("Hub listing is not valid JSON: ") + simdjson::error_message(err));
    simdjson::dom::array entries;
    if (root.get_array().get(entries)) throw FormatError(0, "Hub listing is not a JSON array");
    std::vector<HubFile> files;
    size_t i = 0;
    for (auto e : entries) {
        std::string_view type, path;
        if (e["type"].get_string().get(type) || e["path"].get_string().get(path))
            throw FormatError(0, "Hub listing entry " + std::to_string(i) + " has no string \"type\" and \"path\"");
        ++i;
        if (type != "file") continue;
        if (path.empty() || path.front() == '/' || path.find("..") != std::string_view::npos)
            throw FormatError(0, "Hub listing path '" + std::string(path) + "' is absolute or escapes the repository");
        HubFile f;
        f.path = std::string(path);
        if (e["size"].get_uint64().get(f.size))
            throw FormatError(0, "Hub listing entry '" + f.path + "' has no non-negative \"size\"");
        std::string_view oid;
        if (e["lfs"]["oid"].get_string().get(oid) == simdjson::SUCCESS) f.sha256 = std::string(oid);
        files.push_back(std::move(f));
    }
    return files;
}

}  // namespace modelcat::format
