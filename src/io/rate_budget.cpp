#include "io/rate_budget.hpp"

#include <algorithm>

#include "io/http_headers.hpp"
#include "io/seconds.hpp"

namespace modelcat::io {

namespace {

// Servers announce the reset in whole seconds; waiting a second past it covers one that rounds down.
constexpr auto kResetMargin = std::chrono::seconds(1);
// Two announced resets this close are the same window.
constexpr auto kSameWindow = std::chrono::milliseconds(1500);

}  // namespace

// A window that has reset: full again when the policy said its quota, else unknown until an answer.
void RateBudgets::roll_over(Budget& b, Clock::time_point now) {
    if (b.known != Known::announced || now < b.reset) return;
    if (!b.quota || !b.window_s || *b.window_s <= 0) {
        b.known = Known::not_yet;
        return;
    }
    while (b.reset <= now) b.reset += seconds_as_duration(*b.window_s);
    b.remaining = b.lowest = *b.quota;
}

bool RateBudgets::has_room(const std::string& host, const std::string& name, Clock::time_point now) {
    if (name.empty()) return true;
    Budget& b = budgets_[{host, name}];
    roll_over(b, now);
    switch (b.known) {
        case Known::not_yet: return b.in_flight.empty();
        case Known::silent: return true;
        case Known::announced: return b.remaining > 0;
    }
    return true;
}

uint64_t RateBudgets::sent(const std::string& host, const std::string& name) {
    if (name.empty()) return 0;
    Budget& b = budgets_[{host, name}];
    b.in_flight.insert(next_ticket_);
    if (b.known == Known::announced && b.remaining > 0) --b.remaining;
    return next_ticket_++;
}

void RateBudgets::abandoned(const std::string& host, const std::string& name, uint64_t ticket) {
    if (name.empty()) return;
    budgets_[{host, name}].in_flight.erase(ticket);
}

std::optional<double> RateBudgets::answered(const std::string& host, const std::string& name, uint64_t ticket,
                                            const std::string& ratelimit, const std::string& policy, Clock::time_point now) {
    abandoned(host, name, ticket);
    if (name.empty() && ratelimit.empty()) return std::nullopt;
    http::RateLimit rl = http::parse_ratelimit(ratelimit), pol = http::parse_ratelimit(policy);
    const std::string budget = !rl.name.empty() ? rl.name : name;
    Budget& b = budgets_[{host, budget}];
    if (!rl.remaining || !rl.reset_s) {
        if (b.known == Known::not_yet) b.known = Known::silent;  // a missing header changes nothing
        return std::nullopt;
    }
    if (pol.quota) b.quota = pol.quota;
    if (pol.window_s) b.window_s = pol.window_s;
    // Requests sent before this one were counted before it; those sent after it may not be yet.
    const uint64_t later = static_cast<uint64_t>(std::distance(b.in_flight.upper_bound(ticket), b.in_flight.end()));
    const uint64_t left = *rl.remaining - std::min<uint64_t>(*rl.remaining, later);
    const Clock::time_point reset = now + seconds_as_duration(*rl.reset_s) + kResetMargin;
    if (b.known != Known::announced || reset > b.reset + kSameWindow) {  // first word, or a new window
        b.known = Known::announced;
        b.remaining = left;
        b.lowest = *rl.remaining;
        b.reset = reset;
    } else if (reset + kSameWindow >= b.reset) {  // the same window: trust the lower count
        b.lowest = std::min(b.lowest, *rl.remaining);
        // nothing in flight: every request was counted, and the lowest count announced is exact
        b.remaining = b.in_flight.empty() ? b.lowest : std::min(b.remaining, left);
        b.reset = std::max(b.reset, reset);
    }  // else an answer from a window already over
    if (b.remaining > 0) return std::nullopt;
    return std::chrono::duration<double>(b.reset - now).count();
}

std::optional<RateBudgets::Clock::time_point> RateBudgets::next_reset(Clock::time_point now) const {
    std::optional<Clock::time_point> next;
    for (const auto& [key, b] : budgets_)
        if (b.known == Known::announced && b.remaining == 0 && b.reset > now) next = next ? std::min(*next, b.reset) : b.reset;
    return next;
}

std::vector<BudgetState> RateBudgets::states(Clock::time_point now) const {
    const auto wall = std::chrono::system_clock::now();
    std::vector<BudgetState> out;
    for (const auto& [key, b] : budgets_)
        if (b.known == Known::announced && b.reset > now)
            out.push_back({key.first, key.second, b.remaining,
                           wall + std::chrono::duration_cast<std::chrono::system_clock::duration>(b.reset - now), b.quota,
                           b.window_s});
    return out;
}

void RateBudgets::restore(const BudgetState& s, Clock::time_point now) {
    const auto left = s.reset - std::chrono::system_clock::now();
    if (left <= left.zero()) return;
    Budget& b = budgets_[{s.host, s.name}];
    b.known = Known::announced;
    b.remaining = b.lowest = s.remaining;
    b.reset = now + std::chrono::duration_cast<Clock::duration>(left);
    b.quota = s.quota;
    b.window_s = s.window_s;
}

}  // namespace modelcat::io
