// `modelcat changes --since SPEC`: the digest a person can mail after a nightly crawl: what
// was new, changed (and how), gone, newly failing and recovered, and what is still failing.
// Nothing at all, exit 0, when nothing changed: `modelcat changes --since last | mail -E`.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "catalog/reader.hpp"
#include "cli/command.hpp"
#include "cli/stop.hpp"
#include "cli/terminal.hpp"
#include "model/census.hpp"

namespace modelcat::cli {

namespace {

using Entry = catalog::DigestEntry;
using Kind = Entry::Kind;

// `last`, a crawl id, a date (YYYY-MM-DD) or a duration back from now (90m, 24h, 7d, 2w).
std::optional<catalog::Since> parse_since(const std::string& spec) {
    catalog::Since s;
    if (spec == "last") return s;
    if (!spec.empty() && spec.size() <= 18 && spec.find_first_not_of("0123456789") == std::string::npos) {
        s.kind = catalog::Since::Kind::crawl;
        s.crawl_id = std::stoll(spec);
        return s;
    }
    int y = 0, m = 0, d = 0;
    char tail = 0;
    if (spec.size() == 10 && std::sscanf(spec.c_str(), "%4d-%2d-%2d%c", &y, &m, &d, &tail) == 3 && m >= 1 && m <= 12 && d >= 1 &&
        d <= 31) {
        s.kind = catalog::Since::Kind::date;
        s.date = spec;
        return s;
    }
    std::optional<double> seconds = parse_duration(spec);
    if (!seconds || !std::isfinite(*seconds) || *seconds <= 0) return std::nullopt;
    s.kind = catalog::Since::Kind::seconds_ago;
    s.seconds = *seconds;
    return s;
}

// "2026-12-02T05:41:17.123Z" -> "2026-12-02 05:41 UTC".
std::string when(const std::string& iso) { return iso.size() >= 16 ? iso.substr(0, 10) + " " + iso.substr(11, 5) + " UTC" : iso; }

std::string bytes(int64_t n) { return with_commas(static_cast<uint64_t>(n)) + " bytes"; }

std::string census(const std::optional<std::string>& c) { return c ? terminal_line(model::census_with_names(*c)) : "?"; }

// "re-quantized; size 1,000 -> 1,200 bytes (+200); census Q4_K:10 -> Q6_K:10; metadata changed".
std::string what_changed(const Entry& e) {
    const std::vector<std::string> what = catalog::what_changed(e.before, e.after);
    auto has = [&](const char* w) { return std::find(what.begin(), what.end(), w) != what.end(); };
    std::vector<std::string> parts;
    if (e.reappeared) parts.push_back("back after being gone");
    if (has("policy")) parts.push_back("re-quantized");
    if (has("size")) {
        const int64_t delta = *e.after.file_bytes - *e.before.file_bytes;
        parts.push_back("size " + with_commas(static_cast<uint64_t>(*e.before.file_bytes)) + " -> " + bytes(*e.after.file_bytes) + " (" +
                        (delta > 0 ? "+" : "-") + with_commas(static_cast<uint64_t>(delta > 0 ? delta : -delta)) + ")");
    }
    if (has("census")) parts.push_back("census " + census(e.before.census) + " -> " + census(e.after.census));
    if (has("metadata")) parts.push_back("metadata changed");
    if (what.empty() && !e.reappeared) parts.push_back("rewritten; size, policy, census and metadata unchanged");
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
    return out;
}

std::string nights(const Entry& e) {
    return std::to_string(e.failing_nights) + (e.failing_nights == 1 ? " night" : " nights");
}

// One line of the digest for one entry, below its section's heading.
std::string entry_line(const Entry& e) {
    const std::string where = "  " + terminal_line(e.location);
    switch (e.kind) {
        case Kind::new_:
            return where + " (" + (e.after.file_bytes ? bytes(*e.after.file_bytes) + ", " : "") + census(e.after.census) + ")";
        case Kind::changed: return where + ": " + what_changed(e);
        case Kind::gone: return where;
        case Kind::newly_failing:  // within a span of several nights: since when
            return where + ": " + terminal_line(e.message) +
                   (e.failing_nights > 1 ? " (failing since " + e.failing_since + ", " + nights(e) + ")" : "");
        case Kind::recovered: return where + " (failing since " + e.failing_since + ", " + nights(e) + ")";
        case Kind::still_failing:
            return where + ": still failing since " + e.failing_since + " (" + nights(e) + "): " + terminal_line(e.message);
    }
    return where;
}

constexpr std::pair<Kind, const char*> kSections[] = {
    {Kind::new_, "new"},       {Kind::changed, "changed"},         {Kind::gone, "gone"},
    {Kind::newly_failing, "newly failing"}, {Kind::recovered, "recovered"}, {Kind::still_failing, "still failing"},
};

std::string digest_text(const catalog::CrawlSpan& span, const std::vector<Entry>& entries) {
    std::map<Kind, std::vector<const Entry*>> by_kind;
    for (const auto& e : entries) by_kind[e.kind].push_back(&e);
    std::ostringstream out;
    std::string counts;
    for (const auto& [kind, name] : kSections)
        if (by_kind.count(kind)) counts += (counts.empty() ? "" : ", ") + with_commas(by_kind[kind].size()) + " " + name;
    out << "modelcat: " << counts << "\n";
    if (span.first == span.last) out << "crawl " << span.last << ", " << when(span.last_started) << "\n";
    else out << "crawls " << span.first << "-" << span.last << ", " << when(span.first_started) << " to " << when(span.last_started) << "\n";
    for (const auto& [kind, name] : kSections) {
        if (!by_kind.count(kind)) continue;
        out << "\n" << name << ":\n";
        for (const Entry* e : by_kind[kind]) out << entry_line(*e) << "\n";
    }
    return out.str();
}

int run_changes(const std::string& db_path, const std::string& spec, std::chrono::milliseconds statement_time) {
    std::optional<catalog::Since> since = parse_since(spec);
    if (!since) {
        std::cerr << "modelcat changes: --since " << terminal_line(spec)
                  << ": expected last, a crawl id, a date (2026-12-01) or a duration (24h, 7d)\n";
        return kExitUsage;
    }
    catalog::Reader reader = catalog::Reader::open(db_path, statement_time);
    std::optional<catalog::CrawlSpan> span = reader.crawls_since(*since);
    if (!span) {
        std::cerr << "modelcat changes: no crawl since " << terminal_line(spec) << "\n";
        return kExitOk;
    }
    std::vector<Entry> entries = reader.digest(*span);
    const bool changed = std::any_of(entries.begin(), entries.end(), [](const Entry& e) { return e.kind != Kind::still_failing; });
    if (changed) std::cout << digest_text(*span, entries);  // still failing alone is no news: silent
    return kExitOk;
}

}  // namespace

Command changes_command(CLI::App& app, std::string& db) {
    auto spec = std::make_shared<std::string>();
    auto statement_time = std::make_shared<std::chrono::milliseconds>();
    auto* cmd = app.add_subcommand("changes", "what crawls changed, as a digest to mail: nothing at all when nothing changed");
    cmd->add_option("--db", db, "catalogue database (default $MODELCAT_DB or catalog.db)");
    cmd->add_option("--since", *spec, "last (the last crawl), a crawl id, a date (2026-12-01, UTC) or a duration (24h, 7d)")->required();
    add_query_timeout(cmd, *statement_time);
    return {cmd, [spec, statement_time, &db] { return run_changes(db, *spec, *statement_time); }};
}

}  // namespace modelcat::cli
