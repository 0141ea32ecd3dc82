#pragma once
// What a person sees during a crawl: a progress line redrawn in place on a
// terminal, plain lines otherwise, and the closing summary (text or JSON).
#include <cstdio>
#include <string>

#include "catalog/digest.hpp"
#include "crawl/crawler.hpp"

namespace modelcat::cli {

// What --json-summary lists besides the totals: the first kListed of each list, with how many in all.
inline constexpr size_t kListed = 1000;
struct SummaryLists {
    catalog::CrawlEvents new_, changed, gone;  // from the crawl's events (catalog/digest.hpp)
};

// A dry run's --json-summary: counts and the lists, in the crawl's summary's names.
std::string dry_run_json(const crawl::DryRun& plan);

class CrawlDisplay {
public:
    CrawlDisplay(bool quiet, bool interactive) : quiet_(quiet), interactive_(interactive) {}
    void model_done(const crawl::ModelOutcome& o);
    void progress(const crawl::CrawlProgress& p);
    // The summary line (none after --quiet's success), and the JSON summary on stdout when given its lists.
    void finish(const crawl::CrawlReport& r, const SummaryLists* json);
    // A server's announced budget ran out: requests spending it wait for the reset.
    void budget_wait(const std::string& host, const std::string& budget, double seconds);

private:
    void clear_line();
    bool quiet_, interactive_;
    bool line_shown_ = false;
};

}  // namespace modelcat::cli
