#pragma once
// The nightly digest's data (`modelcat changes --since`): what the history (model_events) of a
// span of crawls adds up to, one entry per location, and the lists a crawl's JSON summary
// carries. The rules are digest.cpp's (one ordered read of each location's history, summed up
// in C++); the words are cli/changes_command.cpp's.
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace modelcat::catalog {

// The crawls a digest covers: `first` up to the latest, `last`.
struct CrawlSpan {
    int64_t first = 0, last = 0;
    std::string first_started, last_started;  // crawls.started_at (ISO 8601 UTC)
};

// Where a digest starts: the last crawl, a crawl id, or the first crawl started at or after an instant.
struct Since {
    enum class Kind { last, crawl, seconds_ago, date } kind = Kind::last;
    int64_t crawl_id = 0;
    double seconds = 0;
    std::string date;  // YYYY-MM-DD (UTC midnight)
};

// nullopt when no crawl started in the span (or crawl_id is past the last).
std::optional<CrawlSpan> crawls_since(SQLite::Database& db, const Since& since);

// What model_events holds of a model before or after an event (absent values: nullopt).
struct EventSide {
    std::optional<int64_t> file_bytes;
    std::optional<std::string> policy, census, metadata;
};

// "size", "policy", "census", "metadata": what differs between two sides of a change (a side
// that does not know a value, such as metadata in events older than schema 19, compares equal).
std::vector<std::string> what_changed(const EventSide& before, const EventSide& after);

struct DigestEntry {
    enum class Kind { new_, changed, gone, newly_failing, still_failing, recovered } kind = Kind::new_;
    std::string location;
    EventSide before, after;     // changed: the first before and the last after in the span
    std::string message;         // failing: the latest reason
    std::string failing_since;   // failing, recovered: the day (UTC) its run of failures began
    int64_t failing_nights = 0;  // ... and on how many days a crawl found it failing
    bool reappeared = false;     // changed: it had been gone
};

// One entry per location with an event in the span, ordered by kind, then location.
std::vector<DigestEntry> digest_entries(SQLite::Database& db, const CrawlSpan& span);

// A crawl's models of one event (new, changed, gone): the first `limit` and how many in all.
struct CrawlEvents {
    struct Row {
        std::string location;
        EventSide before, after;
    };
    std::vector<Row> first;
    uint64_t total = 0;
};
CrawlEvents crawl_events(SQLite::Database& db, int64_t crawl_id, const std::string& event, size_t limit);

}  // namespace modelcat::catalog
