#include "catalog/digest.hpp"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <iterator>

#include "catalog/named_statement.hpp"

namespace modelcat::catalog {

namespace {

// The history up to :last of each location with an event in crawls :first..:last, a location's
// events together in order: one pass over the location index, whatever the span.
const char* const kHistorySql =
    "SELECT e.location, e.crawl_id, e.event, date(c.started_at), coalesce(e.message, ''), e.file_bytes_before,"
    " e.file_bytes_after, e.policy_before, e.policy_after, e.census_before, e.census_after, e.metadata_before,"
    " e.metadata_after FROM model_events e JOIN crawls c USING (crawl_id)"
    " WHERE e.crawl_id <= :last AND e.location IN (SELECT location FROM model_events WHERE crawl_id BETWEEN :first AND :last)"
    " ORDER BY e.location, e.event_id";

struct Event {
    int64_t crawl_id = 0;
    std::string event, day, message;
    EventSide before, after;
};

// A spell of failures: a failing file is read again by every crawl, so its 'failed' events
// follow one another until another event (new, changed, gone) ends the spell.
struct Spell {
    int64_t first_crawl = 0;
    std::string since, last_day;
    int64_t nights = 0;  // distinct days with a failing crawl
    void add(const Event& e) {
        if (!nights) first_crawl = e.crawl_id, since = e.day;
        if (e.day != last_day) ++nights;
        last_day = e.day;
    }
};

// What one location's history (events up to the span's last crawl, at least one in the span) adds up to.
DigestEntry summarize(const std::string& location, const std::vector<Event>& events, int64_t first) {
    using K = DigestEntry::Kind;
    DigestEntry d;
    d.location = location;
    Spell spell;
    std::optional<Spell> recovered;
    size_t first_in_span = events.size();
    bool new_in_span = false;
    for (size_t i = 0; i < events.size(); ++i) {
        const Event& e = events[i];
        const bool in_span = e.crawl_id >= first;
        if (in_span && first_in_span == events.size()) first_in_span = i;
        new_in_span |= in_span && e.event == "new";
        if (e.event == "failed") {
            spell.add(e);
            continue;
        }
        if (in_span && spell.nights && e.event != "gone") recovered = spell;
        spell = {};
    }
    const Event& last = events.back();
    const Event& first_event = events[first_in_span];
    d.after = last.after;
    d.message = last.message;
    if (last.event == "failed") {
        d.kind = spell.first_crawl >= first ? K::newly_failing : K::still_failing;
        d.failing_since = spell.since;
        d.failing_nights = spell.nights;
    } else if (last.event == "gone") {
        d.kind = K::gone;
        d.before = last.before;
    } else if (recovered) {
        d.kind = K::recovered;
        d.failing_since = recovered->since;
        d.failing_nights = recovered->nights;
    } else {
        d.kind = new_in_span ? K::new_ : K::changed;
        d.before = first_event.before;
        d.reappeared = first_in_span > 0 && events[first_in_span - 1].event == "gone";
    }
    return d;
}

int kind_rank(DigestEntry::Kind k) {
    using K = DigestEntry::Kind;
    constexpr K kOrder[] = {K::new_, K::changed, K::gone, K::newly_failing, K::recovered, K::still_failing};
    return static_cast<int>(std::find(std::begin(kOrder), std::end(kOrder), k) - std::begin(kOrder));
}

std::optional<std::string> text_or_null(const SQLite::Column& c) {
    return c.isNull() ? std::nullopt : std::optional(c.getString());
}

std::optional<int64_t> int_or_null(const SQLite::Column& c) { return c.isNull() ? std::nullopt : std::optional(c.getInt64()); }

// Columns i..i+7: bytes, policy, census and metadata, before then after, paired.
void read_sides(SQLite::Statement& st, int i, EventSide& before, EventSide& after) {
    before.file_bytes = int_or_null(st.getColumn(i));
    after.file_bytes = int_or_null(st.getColumn(i + 1));
    before.policy = text_or_null(st.getColumn(i + 2));
    after.policy = text_or_null(st.getColumn(i + 3));
    before.census = text_or_null(st.getColumn(i + 4));
    after.census = text_or_null(st.getColumn(i + 5));
    before.metadata = text_or_null(st.getColumn(i + 6));
    after.metadata = text_or_null(st.getColumn(i + 7));
}

template <typename T>
bool differ(const std::optional<T>& a, const std::optional<T>& b) {
    return a && b && *a != *b;
}

}  // namespace

std::optional<CrawlSpan> crawls_since(SQLite::Database& db, const Since& since) {
    std::string first;
    switch (since.kind) {
        case Since::Kind::last: first = "(SELECT max(crawl_id) FROM crawls)"; break;
        case Since::Kind::crawl: first = "(SELECT crawl_id FROM crawls WHERE crawl_id >= :crawl ORDER BY crawl_id LIMIT 1)"; break;
        case Since::Kind::seconds_ago:
            first = "(SELECT min(crawl_id) FROM crawls WHERE started_at >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', -:seconds || ' seconds'))";
            break;
        case Since::Kind::date: first = "(SELECT min(crawl_id) FROM crawls WHERE started_at >= :date || 'T00:00:00')"; break;
    }
    NamedStatement st(db, "SELECT f.crawl_id, f.started_at, l.crawl_id, l.started_at FROM crawls f, crawls l"
                          " WHERE f.crawl_id = " + first + " AND l.crawl_id = (SELECT max(crawl_id) FROM crawls)");
    if (since.kind == Since::Kind::crawl) st.bind(":crawl", since.crawl_id);
    if (since.kind == Since::Kind::seconds_ago) st.bind(":seconds", since.seconds);
    if (since.kind == Since::Kind::date) st.bind(":date", since.date);
    if (!st.step()) return std::nullopt;
    return CrawlSpan{st.column(0).getInt64(), st.column(2).getInt64(), st.column(1).getString(), st.column(3).getString()};
}

std::vector<std::string> what_changed(const EventSide& before, const EventSide& after) {
    std::vector<std::string> out;
    if (differ(before.file_bytes, after.file_bytes)) out.push_back("size");
    if (differ(before.policy, after.policy)) out.push_back("policy");
    if (differ(before.census, after.census)) out.push_back("census");
    if (differ(before.metadata, after.metadata)) out.push_back("metadata");
    return out;
}

std::vector<DigestEntry> digest_entries(SQLite::Database& db, const CrawlSpan& span) {
    NamedStatement st(db, kHistorySql);
    st.bind(":first", span.first);
    st.bind(":last", span.last);
    std::vector<DigestEntry> out;
    std::string location;
    std::vector<Event> events;
    auto flush = [&] {
        if (!events.empty()) out.push_back(summarize(location, events, span.first));
        events.clear();
    };
    while (st.step()) {
        if (st.column(0).getString() != location) {
            flush();
            location = st.column(0).getString();
        }
        Event e;
        e.crawl_id = st.column(1).getInt64();
        e.event = st.column(2).getString();
        e.day = st.column(3).getString();
        e.message = st.column(4).getString();
        read_sides(st.statement(), 5, e.before, e.after);
        events.push_back(std::move(e));
    }
    flush();
    std::stable_sort(out.begin(), out.end(), [](const DigestEntry& a, const DigestEntry& b) { return kind_rank(a.kind) < kind_rank(b.kind); });
    return out;
}

CrawlEvents crawl_events(SQLite::Database& db, int64_t crawl_id, const std::string& event, size_t limit) {
    CrawlEvents out;
    SQLite::Statement count(db, "SELECT count(*) FROM model_events WHERE crawl_id = ? AND event = ?");
    count.bind(1, crawl_id);
    count.bind(2, event);
    count.executeStep();
    out.total = static_cast<uint64_t>(count.getColumn(0).getInt64());
    SQLite::Statement st(db, "SELECT location, file_bytes_before, file_bytes_after, policy_before, policy_after, census_before,"
                             " census_after, metadata_before, metadata_after FROM model_events WHERE crawl_id = ? AND event = ?"
                             " ORDER BY event_id LIMIT ?");
    st.bind(1, crawl_id);
    st.bind(2, event);
    st.bind(3, static_cast<int64_t>(limit));
    while (st.executeStep()) {
        CrawlEvents::Row r;
        r.location = st.getColumn(0).getString();
        read_sides(st, 1, r.before, r.after);
        out.first.push_back(std::move(r));
    }
    return out;
}

}  // namespace modelcat::catalog
