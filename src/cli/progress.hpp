#pragma once
// What a person sees during a crawl: a progress line redrawn in place on a
// terminal, plain lines otherwise, and the closing summary (text or JSON).
#include <cstdio>
#include <string>

#include "crawl/crawler.hpp"

namespace modelcat::cli {

class CrawlDisplay {
public:
    CrawlDisplay(bool quiet, bool interactive) : quiet_(quiet), interactive_(interactive) {}
    void model_done(const crawl::ModelOutcome& o);
    void progress(const crawl::CrawlProgress& p);
    void finish(const crawl::CrawlReport& r, bool json_summary);
    // A server's announced budget ran out: requests spending it wait for the reset.
    void budget_wait(const std::string& host, const std::string& budget, double seconds);

private:
    void clear_line();
    bool quiet_, interactive_;
    bool line_shown_ = false;
};

}  // namespace modelcat::cli
