#include "format/hub_listing.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <ctime>

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

namespace {

bool repo_id(std::string_view id) {
    const size_t slash = id.find('/');
    if (slash == std::string_view::npos || id.find('/', slash + 1) != std::string_view::npos) return false;
    for (std::string_view part : {id.substr(0, slash), id.substr(slash + 1)}) {
        if (part.empty() || part == "." || part == ".." || part.size() > 96) return false;
        auto allowed = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; };
        if (!std::all_of(part.begin(), part.end(), allowed)) return false;
    }
    return true;
}

bool commit_id(std::string_view s) { return s.size() == 40 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos; }

}  // namespace

std::optional<int64_t> iso_utc_ms(std::string_view t) {
    // 2024-07-23T14:48:36Z or 2024-07-23T14:48:36.123Z
    if (t.size() != 20 && t.size() != 24) return std::nullopt;
    auto num = [&](size_t at, size_t n, int& out) {
        out = 0;
        for (size_t i = at; i < at + n; ++i) {
            if (t[i] < '0' || t[i] > '9') return false;
            out = out * 10 + (t[i] - '0');
        }
        return true;
    };
    int y, mo, d, h, mi, s, ms = 0;
    if (!num(0, 4, y) || t[4] != '-' || !num(5, 2, mo) || t[7] != '-' || !num(8, 2, d) || t[10] != 'T' || !num(11, 2, h) ||
        t[13] != ':' || !num(14, 2, mi) || t[16] != ':' || !num(17, 2, s) || t.back() != 'Z')
        return std::nullopt;
    if (t.size() == 24 && (t[19] != '.' || !num(20, 3, ms))) return std::nullopt;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
    std::tm tm{};
    tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s;
    return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

std::vector<HubModelEntry> parse_hub_models(std::span<const uint8_t> json, size_t max_entries) {
    simdjson::dom::parser parser;
    simdjson::dom::array entries;
    if (parse_json(parser, json, "Hub models page").get_array().get(entries))
        throw model::FormatError::at_json_path("$", "Hub models page is not a JSON array");
    std::vector<HubModelEntry> out;
    for (auto e : entries) {
        const std::string at = "[" + std::to_string(out.size()) + "]";
        if (out.size() == max_entries)
            throw model::FormatError::at_json_path("$", "Hub models page has more than " + std::to_string(max_entries) +
                                                            " entries (the cap)");
        std::string_view id, modified, sha;
        if (e["id"].get_string().get(id) || !repo_id(id))
            throw model::FormatError::at_json_path(at + ".id", "Hub models page entry has no \"id\" of the form owner/name");
        HubModelEntry m{std::string(id), "", 0, ""};
        std::optional<int64_t> ms;
        if (e["lastModified"].get_string().get(modified) || !(ms = iso_utc_ms(modified)))
            throw model::FormatError::at_json_path(at + ".lastModified",
                                                   "Hub models page entry '" + m.repo + "' has no ISO 8601 UTC \"lastModified\"");
        if (e["sha"].get_string().get(sha) || !commit_id(sha))
            throw model::FormatError::at_json_path(at + ".sha", "Hub models page entry '" + m.repo + "' has no 40-hex \"sha\"");
        m.last_modified = std::string(modified), m.modified_ms = *ms, m.sha = std::string(sha);
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace modelcat::format
