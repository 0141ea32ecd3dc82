#pragma once
// Range reads of http(s):// URLs through HttpFetcher's event loop.
#include "io/http_fetcher.hpp"
#include "io/range_reader.hpp"

namespace modelcat::io {

class HttpReader final : public RangeReader {
public:
    explicit HttpReader(HttpOptions options) : fetcher_(std::move(options)) {}
    void submit(RangeRequest request, std::function<void(RangeReply)> on_done) override;
    // Replies arrive on the event loop's thread: the work is done there, at once.
    void offload(std::function<void()> work, std::function<void()> then) override {
        work();
        then();
    }
    void run() override { fetcher_.run(); }
    std::vector<BudgetState> budgets() const { return fetcher_.budgets(); }

private:
    HttpFetcher fetcher_;
};

}  // namespace modelcat::io
