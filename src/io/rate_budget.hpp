#pragma once
// The request budgets servers announce in RateLimit / RateLimit-Policy (IETF
// draft; the Hub's "api" and "resolvers"), kept per host and budget name:
// how many requests remain until the window resets. Requests are held while
// none remain, so a server that announces its budget never has to answer 429.
// The caller names the budget a request spends; a server that announces
// nothing is never held.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace modelcat::io {

// A budget as a server last announced it, in wall-clock time: what one crawl
// leaves for the next, which may start before the window resets.
struct BudgetState {
    std::string host, name;
    uint64_t remaining = 0;
    std::chrono::system_clock::time_point reset;
    std::optional<uint64_t> quota;
    std::optional<double> window_s;
};

class RateBudgets {
public:
    using Clock = std::chrono::steady_clock;

    // Whether a request spending `name` on `host` may be sent at `now` ("" spends nothing).
    bool has_room(const std::string& host, const std::string& name, Clock::time_point now);
    // Counts a request as sent (after has_room said yes); the ticket names it in what follows.
    uint64_t sent(const std::string& host, const std::string& name);
    // The answer to request `ticket`: its RateLimit and RateLimit-Policy values (empty when
    // absent). Returns the seconds until reset when this answer exhausted an announced budget.
    std::optional<double> answered(const std::string& host, const std::string& name, uint64_t ticket,
                                   const std::string& ratelimit, const std::string& policy, Clock::time_point now);
    // A request that got no answer at all.
    void abandoned(const std::string& host, const std::string& name, uint64_t ticket);
    // The earliest moment an exhausted budget resets, if any is exhausted.
    std::optional<Clock::time_point> next_reset(Clock::time_point now) const;
    // The announced budgets whose window is not over at `now`.
    std::vector<BudgetState> states(Clock::time_point now) const;
    // A budget an earlier crawl was told, as if announced now; nothing when its window is over.
    void restore(const BudgetState& state, Clock::time_point now);

private:
    enum class Known { not_yet, silent, announced };  // not_yet: one request at a time until an answer tells
    struct Budget {
        Known known = Known::not_yet;
        uint64_t remaining = 0;   // as announced, less what was sent since
        uint64_t lowest = 0;      // the lowest remaining count announced in this window
        Clock::time_point reset;  // when the window resets (plus a margin for a rounded-down t)
        std::optional<uint64_t> quota;
        std::optional<double> window_s;
        std::set<uint64_t> in_flight;  // tickets, in the order sent
    };
    void roll_over(Budget& b, Clock::time_point now);
    std::map<std::pair<std::string, std::string>, Budget> budgets_;
    uint64_t next_ticket_ = 1;
};

}  // namespace modelcat::io
