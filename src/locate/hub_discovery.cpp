#include "locate/hub_discovery.hpp"

#include <algorithm>

#include "format/hub_listing.hpp"

namespace modelcat::locate {

namespace {

// The models API's index may show a commit a little after it happened: an entry this much older
// than the last listing's newest is one that listing saw as it is now.
constexpr int64_t kIndexLagMs = 3600 * 1000;
constexpr double kFullListingEveryS = 7 * 24 * 3600;  // a deleted repository is noticed within a week

}  // namespace

struct HubDiscoverer::Scope {
    HubScope input;
    std::map<std::string, const model::HubRepoRow*> known;  // this scope's recorded repositories
    std::optional<int64_t> stop_below_ms;                   // unset: a full listing
    std::set<std::string> pages, seen;
    std::optional<int64_t> previous_ms;  // the entry before: the pages must come newest first
    bool sorted = true;
    model::HubListingRow listing;  // what this crawl's listing leaves, once it ends
    int64_t newest_ms = 0;
};

HubDiscoverer::HubDiscoverer(const HubMemory& memory, std::string endpoint, Hooks hooks)
    : memory_(memory), endpoint_(std::move(endpoint)), hooks_(std::move(hooks)) {}

HubDiscoverer::~HubDiscoverer() = default;

void HubDiscoverer::start(const HubScope& input) {
    auto s = std::make_unique<Scope>();
    s->input = input;
    s->listing.scope = input.input;
    for (const auto& r : memory_.repos)
        if (r.scope == input.input) s->known[r.repo] = &r;
    auto last = std::find_if(memory_.listings.begin(), memory_.listings.end(), [&](const auto& l) { return l.scope == input.input; });
    const bool week_old = last == memory_.listings.end() || !last->full_at || memory_.now - *last->full_at >= kFullListingEveryS;
    std::optional<int64_t> newest = last == memory_.listings.end() || !last->newest ? std::nullopt : format::iso_utc_ms(*last->newest);
    if (!memory_.full_listing && !week_old && newest) s->stop_below_ms = *newest - kIndexLagMs;
    scopes_.push_back(std::move(s));
    read_page(scopes_.size() - 1, hub_models_url(endpoint_, input));
}

void HubDiscoverer::read_page(size_t scope, const std::string& url) {
    scopes_[scope]->pages.insert(url);
    hooks_.fetch(url, [this, scope](const io::RangeReply& reply) { on_page(scope, reply); });
}

void HubDiscoverer::on_page(size_t scope, const io::RangeReply& reply) {
    Scope& s = *scopes_[scope];
    const std::string& input = s.input.input;
    if (!reply.ok()) return hooks_.problem({.location = input, .message = hooks_.explain(reply)});
    std::vector<format::HubModelEntry> entries;
    try {
        entries = format::parse_hub_models(reply.body);
    } catch (const model::FormatError& e) {
        model::Failure problem = e.failure(input);
        problem.message += ": " + reply.location;
        return hooks_.problem(std::move(problem));
    }
    for (const auto& e : entries) {  // the whole page first: one out of order forbids stopping anywhere
        if (s.previous_ms && e.modified_ms > *s.previous_ms) s.sorted = false;
        s.previous_ms = e.modified_ms;
    }
    for (const auto& e : entries)
        if (take_entry(s, e)) return finish(s, false);
    const auto next = reply.link_next;
    if (!next) return finish(s, true);
    if (hooks_.stopping()) return;
    if (s.pages.count(*next))
        return hooks_.problem({.location = input, .message = "the models API's next page is one already read: " + *next});
    if (s.pages.size() == model::Limits::max_model_pages)
        return hooks_.problem({.location = input, .message = "the models API listing has more than " +
                                                             std::to_string(model::Limits::max_model_pages) + " pages (the cap): " +
                                                             reply.location});
    read_page(scope, *next);
}

bool HubDiscoverer::take_entry(Scope& s, const format::HubModelEntry& e) {
    if (!s.seen.insert(e.repo).second) return false;  // on an earlier page too (the order moved under us)
    if (!s.listing.newest || e.modified_ms > s.newest_ms) s.listing.newest = e.last_modified, s.newest_ms = e.modified_ms;
    const model::HubRepoRow row{s.input.input, e.repo, e.last_modified, e.sha, "ok", true};
    auto known = s.known.find(e.repo);
    const bool unchanged = known != s.known.end() && known->second->status == "ok" && known->second->sha == e.sha;
    size_t i = add_repo(s, row, unchanged ? RepoVerdict::unchanged : RepoVerdict::changed, true);
    if (!unchanged) list(i);
    return unchanged && s.sorted && s.stop_below_ms && e.modified_ms < *s.stop_below_ms;
}

// The listing ended where it could: recorded; a full one asks after the repositories it no longer shows.
void HubDiscoverer::finish(Scope& s, bool every_page) {
    s.listing.full = every_page && !s.stop_below_ms;
    out_.listings.push_back(s.listing);
    if (!s.listing.full) return;
    for (const auto& [repo, row] : s.known)
        if (!s.seen.count(repo) && (row->status == "ok" || row->status == "pending"))
            check_gone(add_repo(s, *row, RepoVerdict::left, false));
}

// One request: 404 is gone; a card is a repository that left the listing; anything else says nothing.
void HubDiscoverer::check_gone(size_t i) {
    out_.repos[i].verdict = RepoVerdict::unchanged;  // until the Hub says otherwise
    hooks_.fetch(hub_model_url(endpoint_, out_.repos[i].repo), [this, i](const io::RangeReply& reply) {
        if (reply.status == 404) out_.repos[i].verdict = RepoVerdict::gone;
        else if (reply.ok() && reply.status == 200) out_.repos[i].verdict = RepoVerdict::left;
    });
}

size_t HubDiscoverer::add_repo(const Scope& s, const model::HubRepoRow& row, RepoVerdict verdict, bool seen) {
    out_.repos.push_back({s.input.input, row.repo, row.last_modified, row.sha, verdict,
                          hub_resolve_url(endpoint_, row.repo, "main", ""), seen, false});
    return out_.repos.size() - 1;
}

void HubDiscoverer::list(size_t i) {
    auto& entries = listing_[out_.repos[i].repo];
    entries.push_back(i);
    if (entries.size() > 1) {  // listed once for every scope that shows it
        out_.repos[i].listed = out_.repos[entries.front()].listed;
        return;
    }
    const Scope& s = **std::find_if(scopes_.begin(), scopes_.end(), [&](const auto& sc) { return sc->input.input == out_.repos[i].scope; });
    hooks_.list_repo(HubInput{"hf://" + out_.repos[i].repo, out_.repos[i].repo, "main", s.input.glob, s.input.input});
}

void HubDiscoverer::retry_pending() {
    for (const auto& sp : scopes_) {
        for (const auto& [repo, row] : sp->known) {
            if (row->status != "pending" || sp->seen.count(repo)) continue;
            const std::string &name = repo, &scope = row->scope;  // clang 14's lambdas capture no structured binding
            const bool checked = std::any_of(out_.repos.begin(), out_.repos.end(),
                                             [&](const DiscoveredRepo& d) { return d.scope == scope && d.repo == name; });
            if (!checked) list(add_repo(*sp, *row, RepoVerdict::retried, false));
        }
    }
}

void HubDiscoverer::listing_done(const HubInput& repo, bool ok) {
    for (size_t i : listing_[repo.repo]) out_.repos[i].listed = ok;
}

bool HubDiscoverer::listing_missing(const HubInput& repo) {
    auto it = listing_.find(repo.repo);
    if (repo.scope.empty() || it == listing_.end()) return false;
    for (size_t i : it->second) out_.repos[i].verdict = RepoVerdict::gone;
    return true;
}

}  // namespace modelcat::locate
