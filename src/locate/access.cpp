#include "locate/access.hpp"

#include <chrono>

#include "locate/hub.hpp"

namespace modelcat::locate {

bool HttpAccess::sends_token(const std::string& url) const {
    return http.token.has_value() && url.starts_with(hf_endpoint + "/");
}

io::RangeRequest HttpAccess::request(const std::string& location, uint64_t offset, uint64_t length) const {
    io::RangeRequest r{location, offset, length};
    r.with_token = sends_token(location);
    r.budget = hub_budget(location);
    return r;
}

std::string HttpAccess::explain(const io::RangeReply& reply) const { return failure_message(reply, sends_token(reply.location)); }

io::HttpOptions HttpAccess::reader_options(const std::vector<io::BudgetState>& known) const {
    io::HttpOptions o = http;
    o.first_hop_headers = hub_redirect_headers();
    o.budgets = known;
    return o;
}

std::vector<io::BudgetState> budget_states(const std::vector<model::RateBudgetRow>& rows) {
    std::vector<io::BudgetState> out;
    for (const auto& r : rows)
        out.push_back({r.host, r.budget, static_cast<uint64_t>(r.remaining),
                       std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
                           std::chrono::duration<double>(r.resets_at))),
                       r.quota ? std::optional<uint64_t>(static_cast<uint64_t>(*r.quota)) : std::nullopt, r.window_s});
    return out;
}

std::vector<model::RateBudgetRow> budget_rows(const std::vector<io::BudgetState>& states) {
    std::vector<model::RateBudgetRow> out;
    for (const auto& s : states)
        out.push_back({s.host, s.name, static_cast<int64_t>(s.remaining),
                       std::chrono::duration<double>(s.reset.time_since_epoch()).count(),
                       s.quota ? std::optional<int64_t>(static_cast<int64_t>(*s.quota)) : std::nullopt, s.window_s});
    return out;
}

}  // namespace modelcat::locate
