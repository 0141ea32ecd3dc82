#pragma once
// How modelcat reaches remote inputs, one object for crawl and audit alike:
// the Hub endpoint, the token (sent to the Hub endpoint only), the HTTP caps
// and pace, and the request budgets servers announced to earlier runs.
#include <cstdint>
#include <string>
#include <vector>

#include "io/http_fetcher.hpp"
#include "io/range_reader.hpp"
#include "model/rows.hpp"

namespace modelcat::locate {

struct HttpAccess {
    std::string hf_endpoint = "https://huggingface.co";  // hf:// inputs resolve under it; no trailing '/'
    io::HttpOptions http;  // the token, transfers in flight, per-host cap, requests per minute, budget waits

    // Whether a request to `url` carries the token: the Hub endpoint's URLs only.
    bool sends_token(const std::string& url) const;
    // The request for [offset, offset + length) of `location` (a path or URL): with the token
    // where it goes, and naming the Hub budget it spends.
    io::RangeRequest request(const std::string& location, uint64_t offset = 0, uint64_t length = 0) const;
    // What a failed reply means, with what to do about a refusal.
    std::string explain(const io::RangeReply& reply) const;
    // The options an HTTP reader is made with: these, the Hub's redirect headers kept, and the
    // budgets `known` says servers announced before.
    io::HttpOptions reader_options(const std::vector<io::BudgetState>& known = {}) const;
};

// Budgets as the catalogue keeps them between runs (wall-clock seconds: the next process has
// another steady clock), and back.
std::vector<io::BudgetState> budget_states(const std::vector<model::RateBudgetRow>& rows);
std::vector<model::RateBudgetRow> budget_rows(const std::vector<io::BudgetState>& states);

}  // namespace modelcat::locate
