#pragma once
// Range requests over HTTP(S): libcurl's multi interface, one thread, one
// event loop, many transfers. Retries, backoff and rate limits are timers in
// that loop, so a waiting transfer never blocks the others. Headers only: a
// server that ignores Range costs a bounded number of bytes and an error.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format/byte_buffer.hpp"
#include "io/rate_budget.hpp"

namespace modelcat::io {

// The libcurl linked in ("8.5.0"), for --version.
std::string curl_library_version();

namespace detail {
struct HttpState;
}

struct HttpRequest {
    std::string url;
    // Asks for bytes [offset, offset + length) with "Range: bytes=offset-(offset+length-1)".
    // length 0 is a plain GET of a small resource (an API listing), capped by max_plain_body.
    uint64_t offset = 0;
    uint64_t length = 0;
    std::optional<std::string> if_none_match = std::nullopt;  // an ETag: a 304 then answers "unchanged"
    bool with_token = true;  // send HttpOptions::token (the crawler sends it to the Hub's endpoint only)
    // The rate-limit budget this request spends ("" none): admitted only while the budget the
    // server announced (RateLimit, RateLimit-Policy) has room; the caller names its budgets.
    std::string budget = {};
};

struct HttpResponse {
    std::string url;            // as requested
    long status = 0;            // final status after redirects (206, 200, 304, ...); 0: no response
    format::ByteBuffer body;    // 206: the range; 200: the whole (small) resource; else empty
    std::optional<uint64_t> total_size;  // the file's size, from Content-Range (or a complete 200)
    std::string final_url;               // after redirects
    std::string etag, last_modified;     // of the final response
    std::string first_etag;              // of the first hop (a redirect's own answer)
    // HttpOptions::first_hop_headers as the first hop sent them (lower-case names): a
    // redirecting server may say things about the file that its target does not.
    std::vector<std::pair<std::string, std::string>> first_hop;
    std::optional<std::string> link_next;  // Link: <URL>; rel="next" (paged API listings)
    std::optional<std::string> error;      // what went wrong, ending with ": URL"
    uint32_t attempts = 0;                 // including retries
    uint32_t requests = 0;                 // requests sent, including retries and redirect hops
    uint64_t bytes_received = 0;           // body bytes over all attempts
    bool ok() const { return !error; }
};

struct HttpOptions {
    unsigned max_in_flight = 16;  // transfers in flight in all
    // Transfers in flight per host (scheme, host, port of the requested URL): HTTP/1.1 opens a
    // connection for each, HTTP/2 multiplexes them on one. Queued transfers wait here, not
    // inside libcurl, whose timeout would count the wait.
    unsigned per_host = 6;
    double max_requests_per_minute = 0;  // 0 = no limit; spaces attempts 60/N s apart (the Hub: 600)
    unsigned max_redirects = 5;
    unsigned max_retries = 4;     // after the first attempt, for 429, 5xx and transport failures
    double timeout_s = 60;        // per attempt, redirect hops included
    double backoff_s = 0.5;       // first retry delay; doubles per retry, jittered to 50-100%, at most 30 s
    // The waits of one request in all (backoff, Retry-After, RateLimit): one asking past it fails the request.
    double max_retry_wait_s = 60;
    // An attempt slower than low_speed_bytes per second over low_speed_window_s fails, not retried.
    long low_speed_bytes = 1024;
    long low_speed_window_s = 10;
    // Asked at least once a second inside run(): true fails every transfer waiting for a retry or a
    // 429 pause ("interrupted"), so that a stop is honoured within a second; those in flight finish.
    std::function<bool()> should_stop;
    // Sent as "Authorization: Bearer" to the requested URL's host only: libcurl (>= 7.83) drops
    // it on a redirect to another host, port or scheme. Never logged, never in error text.
    std::optional<std::string> token;
    uint64_t ignored_range_cap = 1 << 20;  // a 200 to a ranged request: most body bytes read
    uint64_t max_plain_body = 16 << 20;    // a plain GET's body
    std::string ca_file;                   // replaces the system CA bundle (self-signed test servers)
    std::string user_agent = "modelcat/0.1";
    std::vector<std::string> first_hop_headers;  // lower-case names to keep from the first hop
    // Told when an answer leaves a budget (HttpRequest::budget) empty: requests spending it wait
    // `wait_s` seconds for its reset (runs inside run()).
    std::function<void(const std::string& host, const std::string& budget, double wait_s)> on_budget_wait;
    // What an earlier crawl was told of the servers' budgets: honoured until their windows reset.
    std::vector<BudgetState> budgets;
};

class HttpFetcher {
public:
    explicit HttpFetcher(HttpOptions options = {});
    ~HttpFetcher();
    HttpFetcher(const HttpFetcher&) = delete;
    HttpFetcher& operator=(const HttpFetcher&) = delete;

    // Queues a request; on_done runs inside run() and may submit more.
    void submit(HttpRequest request, std::function<void(HttpResponse)> on_done);
    // Drives every transfer, including those submitted from callbacks, until none remain.
    void run();

    uint64_t requests_sent() const;   // over all transfers: retries and redirect hops included
    uint64_t bytes_received() const;  // body bytes
    // The budgets the servers announced whose windows are not over, for the next crawl.
    std::vector<BudgetState> budgets() const;

private:
    std::unique_ptr<detail::HttpState> state_;
};

}  // namespace modelcat::io
