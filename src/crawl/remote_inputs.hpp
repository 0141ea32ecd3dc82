#pragma once
// Remote inputs turned into planned models: hf:// listings (paged), plain
// URLs, and the index.json / config.json files planning needs, all fetched
// through the crawl's reader before any header is read.
#include <string>
#include <vector>

#include "crawl/pipeline.hpp"
#include "crawl/plan.hpp"

namespace modelcat::crawl {

bool is_remote_input(const std::string& input);  // http://, https://, hf:// or ollama://

struct RemotePlan {
    CrawlPlan plan;
    KnownFiles known;
    std::vector<std::string> gone_scopes;  // Hub listings read whole: files under them not seen are gone
    ModelOutcome cost;  // requests and bytes of the listings and JSON fetches (counted once, here)
};

// `sends_token`: whether a URL gets the Hub token (for what a refusal means).
RemotePlan plan_remote(io::RangeReader& reader, const std::vector<std::string>& inputs, const std::string& hf_endpoint,
                       const std::function<bool(const std::string&)>& sends_token);

}  // namespace modelcat::crawl
