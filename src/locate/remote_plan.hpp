#pragma once
// Remote inputs turned into planned models: hf:// listings (paged), plain
// URLs, ollama:// manifests, and the index.json / config.json files planning
// needs, all fetched through the crawl's reader before any header is read.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/range_reader.hpp"
#include "locate/access.hpp"
#include "locate/hub.hpp"
#include "locate/hub_discovery.hpp"
#include "locate/plan.hpp"

namespace modelcat::locate {

// What a listing says of a remote file before it is read.
struct ListingEntry {
    uint64_t size = 0;
    std::optional<std::string> sha256, xet_hash, revision;
    std::optional<std::string> fetch_url;  // where to read it: pinned to the listing's commit
};

// What is known of remote files before they are read: listings and the
// JSON files fetched while planning (read once, used by the model).
struct RemoteFacts {
    std::map<std::string, ListingEntry> listed;
    std::map<std::string, io::RangeReply> fetched;
};

// Requests and bytes that planning spent (listings, manifests, JSON files): counted once, here.
struct PlanningCost {
    uint64_t requests = 0, bytes_read = 0;
    RequestCounts by_kind;
};

struct RemotePlan {
    CrawlPlan plan;
    RemoteFacts known;
    std::vector<std::string> gone_scopes;  // Hub listings read whole: files under them not seen are gone
    PlanningCost cost;
    HubDiscovery discovery;  // what the many-repository inputs' pages showed (locate/hub_discovery.hpp)
};

// Every request goes as `access` says (the token to the Hub endpoint only, budgets named);
// many-repository inputs are listed against what `memory` recorded of them.
RemotePlan plan_remote(io::RangeReader& reader, const std::vector<std::string>& inputs, const HttpAccess& access,
                       const HubMemory& memory = {});

}  // namespace modelcat::locate
