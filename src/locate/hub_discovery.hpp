#pragma once
// Discovery that costs what changed: a many-repository input (hf://AUTHOR/*, hf-search:?...) is
// listed through the models API's pages, newest lastModified first, only down to a repository
// unchanged since the crawl that last saw it (its sha as recorded, and older than the last
// listing's newest by more than the API's index lag); only the repositories that changed are
// listed, and those an earlier crawl left pending. A full listing (the first, --full-listing, or
// a week after the last) reads every page and asks the Hub about each recorded repository it no
// longer shows: 404 is gone, an answer is a repository that left the listing. docs/remote.md.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "format/hub_listing.hpp"
#include "io/range_reader.hpp"
#include "locate/hub.hpp"
#include "model/error.hpp"
#include "model/rows.hpp"

namespace modelcat::locate {

// What the catalogue knows of the inputs' scopes, and how to list them tonight.
struct HubMemory {
    std::vector<model::HubRepoRow> repos;
    std::vector<model::HubListingRow> listings;
    bool full_listing = false;  // --full-listing: every page, whatever was recorded
    double now = 0;             // seconds since the epoch: a week after the last full listing, another
};

enum class RepoVerdict { changed, unchanged, retried, gone, left };

struct DiscoveredRepo {
    std::string scope, repo, last_modified, sha;
    RepoVerdict verdict = RepoVerdict::changed;
    std::string folder;   // where its files are catalogued: ENDPOINT/REPO/resolve/main
    bool seen = false;    // shown by this crawl's pages
    bool listed = false;  // changed or retried: its tree listing was read to the end
};

struct HubDiscovery {
    std::vector<DiscoveredRepo> repos;
    std::vector<model::HubListingRow> listings;  // the scopes whose pages were read down to where they could stop
};

// Drives the pages of every scope through the planner's requests (counted there) and hands it
// the repositories to list.
class HubDiscoverer {
public:
    struct Hooks {
        std::function<void(const std::string& url, std::function<void(const io::RangeReply&)> done)> fetch;
        std::function<void(const HubInput& repo)> list_repo;
        std::function<void(model::Failure problem)> problem;
        std::function<std::string(const io::RangeReply& failed)> explain;
        std::function<bool()> stopping;
    };
    HubDiscoverer(const HubMemory& memory, std::string endpoint, Hooks hooks);
    ~HubDiscoverer();
    void start(const HubScope& scope);
    // After the pages: lists the repositories left pending that the pages did not show.
    void retry_pending();
    // A repository's tree listing ended: read to the end, or not.
    void listing_done(const HubInput& repo, bool ok);
    // A repository's tree listing answered 404: it is gone (true), when it is one of ours.
    bool listing_missing(const HubInput& repo);
    HubDiscovery result() { return std::move(out_); }

private:
    struct Scope;
    void read_page(size_t scope, const std::string& url);
    void on_page(size_t scope, const io::RangeReply& reply);
    // Whether the listing may stop at this unchanged entry.
    bool take_entry(Scope& s, const format::HubModelEntry& e);
    void finish(Scope& s, bool every_page);
    void check_gone(size_t repo);
    size_t add_repo(const Scope& s, const model::HubRepoRow& row, RepoVerdict verdict, bool seen);
    void list(size_t repo);

    const HubMemory& memory_;
    const std::string endpoint_;
    Hooks hooks_;
    std::vector<std::unique_ptr<Scope>> scopes_;
    HubDiscovery out_;
    std::map<std::string, std::vector<size_t>> listing_;  // repo -> its entries (one listing serves every scope)
};

}  // namespace modelcat::locate
