// The HTTP fetcher against a real nginx (tests/http/nginx.hpp). Requests and
// bytes are counted from nginx's access log, not from the client's counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>

#include "io/http_fetcher.hpp"
#include "nginx.hpp"

namespace modelcat::test {
namespace {

using io::HttpFetcher;
using io::HttpOptions;
using io::HttpRequest;
using io::HttpResponse;

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;
const std::string kToken = "hf_test_secret_token";

std::vector<uint8_t> random_bytes(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
}

std::vector<uint8_t> slice(const std::vector<uint8_t>& v, size_t offset, size_t n) {
    return {v.begin() + static_cast<std::ptrdiff_t>(offset), v.begin() + static_cast<std::ptrdiff_t>(offset + n)};
}

// The wall clock nginx's access log uses ($msec).
double seconds_since_epoch() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Quick retries, so that the suite stays fast.
HttpOptions fast_options() {
    HttpOptions o;
    o.backoff_s = 0.05;
    o.timeout_s = 10;
    return o;
}

class HttpFetcherTest : public ::testing::Test {
protected:
    // Fetches one request with a fresh fetcher; `fetcher_requests` gets its counter.
    HttpResponse fetch(const HttpOptions& options, HttpRequest request) {
        HttpFetcher fetcher(options);
        HttpResponse out;
        fetcher.submit(std::move(request), [&](HttpResponse r) { out = std::move(r); });
        fetcher.run();
        fetcher_requests = fetcher.requests_sent();
        fetcher_bytes = fetcher.bytes_received();
        return out;
    }

    static std::vector<AccessLogEntry> on_port(const std::vector<AccessLogEntry>& log, unsigned port) {
        std::vector<AccessLogEntry> out;
        std::copy_if(log.begin(), log.end(), std::back_inserter(out), [&](const auto& e) { return e.port == port; });
        return out;
    }

    Nginx nginx;
    uint64_t fetcher_requests = 0, fetcher_bytes = 0;
};

TEST_F(HttpFetcherTest, RangeRequestIsOneRequestOfExactlyTheRange) {
    auto file = random_bytes(100000, 1);
    nginx.write_file("files/a.gguf", file);
    auto r = fetch(fast_options(), {nginx.url("/files/a.gguf"), 1000, 4096});
    ASSERT_TRUE(r.ok()) << *r.error;
    EXPECT_EQ(r.status, 206);
    EXPECT_EQ(r.body, slice(file, 1000, 4096));
    EXPECT_EQ(r.total_size, 100000u);
    EXPECT_FALSE(r.etag.empty());
    EXPECT_EQ(r.attempts, 1u);
    EXPECT_EQ(r.requests, 1u);
    EXPECT_EQ(fetcher_requests, 1u);
    EXPECT_EQ(fetcher_bytes, 4096u);

    auto log = nginx.wait_for_log(1);
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].status, 206);
    EXPECT_EQ(log[0].range, "bytes=1000-5095");
    EXPECT_EQ(log[0].body_bytes, 4096u);
    EXPECT_EQ(log[0].authorization, "-");
}

TEST_F(HttpFetcherTest, ManyFilesInFlightShareFewConnections) {
    constexpr int kFiles = 40;
    std::vector<std::vector<uint8_t>> files;
    for (int i = 0; i < kFiles; ++i) {
        files.push_back(random_bytes(8192, 100 + i));
        nginx.write_file("files/f" + std::to_string(i) + ".gguf", files.back());
    }
    HttpOptions o = fast_options();
    o.per_host = 4;
    HttpFetcher fetcher(o);
    int good = 0;
    for (int i = 0; i < kFiles; ++i)
        fetcher.submit({nginx.url("/files/f" + std::to_string(i) + ".gguf"), 100, 1000 + static_cast<uint64_t>(i)},
                       [&, i](HttpResponse r) {
                           EXPECT_TRUE(r.ok()) << r.error.value_or("");
                           good += r.body == slice(files[i], 100, 1000 + i);
                       });
    fetcher.run();
    EXPECT_EQ(good, kFiles);

    auto log = nginx.wait_for_log(kFiles);
    ASSERT_EQ(log.size(), static_cast<size_t>(kFiles));
    uint64_t bytes = 0, most_on_one = 0;
    std::set<uint64_t> connections;
    for (const auto& e : log) {
        EXPECT_EQ(e.status, 206);
        bytes += e.body_bytes;
        connections.insert(e.connection);
        most_on_one = std::max(most_on_one, e.connection_requests);
    }
    EXPECT_EQ(bytes, kFiles * 1000u + kFiles * (kFiles - 1) / 2);
    EXPECT_EQ(fetcher.bytes_received(), bytes);
    EXPECT_EQ(fetcher.requests_sent(), static_cast<uint64_t>(kFiles));
    EXPECT_LE(connections.size(), 4u);
    EXPECT_GE(most_on_one, 10u);  // 40 requests over at most 4 kept-alive connections
}

TEST_F(HttpFetcherTest, PerHostCapLimitsConnectionsAndConcurrency) {
    HttpOptions o = fast_options();
    o.per_host = 2;
    HttpFetcher fetcher(o);
    int good = 0;
    for (int i = 0; i < 6; ++i)
        fetcher.submit({nginx.url("/sleep/" + std::to_string(i))}, [&](HttpResponse r) { good += r.ok(); });
    fetcher.run();
    EXPECT_EQ(good, 6);

    auto log = nginx.wait_for_log(6);
    ASSERT_EQ(log.size(), 6u);
    std::set<uint64_t> connections;
    for (const auto& e : log) connections.insert(e.connection);
    EXPECT_EQ(connections.size(), 2u);
    EXPECT_EQ(max_concurrency(log), 2u);
    std::vector<double> starts;
    for (const auto& e : log) starts.push_back(e.start());
    std::sort(starts.begin(), starts.end());
    EXPECT_LT(starts[1] - starts[0], 0.1);  // both slots used at once, not after a first answer
}

TEST_F(HttpFetcherTest, InFlightCapHoldsAcrossHosts) {
    HttpOptions o = fast_options();
    o.max_in_flight = 3;
    o.per_host = 6;
    o.ca_file = nginx.ca_file();
    HttpFetcher fetcher(o);
    int good = 0;
    for (int i = 0; i < 4; ++i) {
        fetcher.submit({nginx.url("/sleep/" + std::to_string(i))}, [&](HttpResponse r) { good += r.ok(); });
        fetcher.submit({nginx.url_tls("/sleep/" + std::to_string(i))}, [&](HttpResponse r) { good += r.ok(); });
    }
    fetcher.run();
    EXPECT_EQ(good, 8);
    auto log = nginx.wait_for_log(8);
    ASSERT_EQ(log.size(), 8u);
    EXPECT_EQ(max_concurrency(log), 3u);
}

TEST_F(HttpFetcherTest, Http2MultiplexesTransfersOnOneConnection) {
    HttpOptions o = fast_options();
    o.per_host = 8;
    o.ca_file = nginx.ca_file();
    HttpFetcher fetcher(o);
    int good = 0;
    for (int i = 0; i < 8; ++i)
        fetcher.submit({nginx.url_tls("/sleep/" + std::to_string(i))}, [&](HttpResponse r) {
            EXPECT_TRUE(r.ok()) << r.error.value_or("");
            good += r.body == std::vector<uint8_t>{'s', 'l', 'e', 'p', 't', '\n'};
        });
    fetcher.run();
    EXPECT_EQ(good, 8);

    auto log = nginx.wait_for_log(8);
    ASSERT_EQ(log.size(), 8u);
    std::set<uint64_t> connections;
    for (const auto& e : log) {
        EXPECT_EQ(e.protocol, "HTTP/2.0");
        connections.insert(e.connection);
    }
    EXPECT_EQ(connections.size(), 1u);
    EXPECT_GE(max_concurrency(log), 6u);
}

TEST_F(HttpFetcherTest, ServerIgnoringRangeCostsBoundedBytesAndAClearError) {
    nginx.sparse_file("files/big.gguf", 50 * MiB);
    HttpOptions o = fast_options();
    HttpFetcher fetcher(o);
    std::vector<HttpResponse> out;
    fetcher.submit({nginx.url("/noranges/big.gguf"), 0, 64 * KiB}, [&](HttpResponse r) { out.push_back(r); });
    fetcher.submit({nginx.url("/noranges/big.gguf"), 1 * MiB, 64 * KiB}, [&](HttpResponse r) { out.push_back(r); });
    fetcher.run();
    ASSERT_EQ(out.size(), 2u);
    for (const auto& r : out) {
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.status, 200);
        EXPECT_EQ(r.attempts, 1u);
        EXPECT_TRUE(r.body.empty());
        EXPECT_LE(r.bytes_received, o.ignored_range_cap);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return *a.error < *b.error; });
    EXPECT_EQ(*out[0].error,
              "server ignores Range requests (answered 200 to bytes=0-65535): refusing to download the whole "
              "file: " + nginx.url("/noranges/big.gguf"));
    EXPECT_NE(out[1].error->find("(answered 200 to bytes=1048576-1114111)"), std::string::npos);

    auto log = nginx.wait_for_log(2);
    ASSERT_EQ(log.size(), 2u);
    for (const auto& e : log) {
        EXPECT_EQ(e.status, 200);
        EXPECT_LE(e.body_bytes, o.ignored_range_cap + 64 * KiB) << "of a 50 MiB file";
    }
}

TEST_F(HttpFetcherTest, ChunkedAnswerIgnoringRangeStopsAtTheCap) {
    nginx.sparse_file("files/big.gguf", 50 * MiB);
    HttpOptions o = fast_options();
    o.ignored_range_cap = 256 * KiB;
    auto r = fetch(o, {nginx.url("/chunked/big.gguf"), 0, 4 * MiB});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error->find("server ignores Range requests (answered 200 to bytes=0-4194303)"), std::string::npos);
    EXPECT_LE(r.bytes_received, o.ignored_range_cap + 16 * KiB);  // one last read past the cap

    auto log = nginx.wait_for_log(1);
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].status, 200);
    // Without Content-Length the client must read up to the cap; nginx also counts what sat in the
    // client's TCP receive window when the connection was reset (measured: 80-130 KiB).
    EXPECT_LE(log[0].body_bytes, o.ignored_range_cap + 256 * KiB) << "of a 50 MiB file";
}

TEST_F(HttpFetcherTest, SmallWholeFileAnsweredWith200IsAccepted) {
    auto file = random_bytes(500, 2);
    nginx.write_file("files/small.json", file);
    auto r = fetch(fast_options(), {nginx.url("/noranges/small.json"), 0, 64 * KiB});
    ASSERT_TRUE(r.ok()) << *r.error;
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, file);
    EXPECT_EQ(r.total_size, 500u);
    auto log = nginx.wait_for_log(1);
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].body_bytes, 500u);
}

TEST_F(HttpFetcherTest, RefusalsSayWhetherATokenWasSentAndAreNotRetried) {
    auto r = fetch(fast_options(), {nginx.url("/gated/model.gguf"), 0, 100});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status, 401);
    EXPECT_EQ(*r.error, "access refused (HTTP 401) without a token: " + nginx.url("/gated/model.gguf"));

    HttpOptions o = fast_options();
    o.token = kToken;
    r = fetch(o, {nginx.url("/forbidden/model.gguf"), 0, 100});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(*r.error, "access refused (HTTP 403) with the token: " + nginx.url("/forbidden/model.gguf"));
    EXPECT_EQ(r.error->find(kToken), std::string::npos);

    auto log = nginx.wait_for_log(2);
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[0].status, 401);
    EXPECT_EQ(log[0].authorization, "-");
    EXPECT_EQ(log[1].status, 403);
    EXPECT_EQ(log[1].authorization, "Bearer " + kToken);
}

TEST_F(HttpFetcherTest, NotFoundIsOneRequest) {
    auto r = fetch(fast_options(), {nginx.url("/files/missing.gguf"), 0, 100});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(*r.error, "not found (HTTP 404): " + nginx.url("/files/missing.gguf"));
    EXPECT_EQ(nginx.wait_for_log(1).size(), 1u);
}

TEST_F(HttpFetcherTest, RangePastTheEndIsNotSatisfiable) {
    nginx.write_file("files/a.gguf", random_bytes(1000, 3));
    auto r = fetch(fast_options(), {nginx.url("/files/a.gguf"), 5000, 100});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status, 416);
    EXPECT_EQ(r.total_size, 1000u);
    EXPECT_EQ(*r.error, "range bytes=5000-5099 not satisfiable (HTTP 416, file is 1000 bytes): " +
                            nginx.url("/files/a.gguf"));
    EXPECT_EQ(nginx.wait_for_log(1).size(), 1u);
}

TEST_F(HttpFetcherTest, TooManyRequestsWaitsForRetryAfterThenSucceeds) {
    auto file = random_bytes(1000, 4);
    nginx.write_file("files/a.gguf", file);
    HttpFetcher fetcher(fast_options());
    HttpResponse second;
    // The first request takes limit_req's token; the second, sent from its callback, meets a 429.
    fetcher.submit({nginx.url("/limited/a.gguf"), 0, 10}, [&](HttpResponse r) {
        EXPECT_TRUE(r.ok());
        fetcher.submit({nginx.url("/limited/a.gguf"), 10, 10}, [&](HttpResponse r2) { second = std::move(r2); });
    });
    fetcher.run();
    ASSERT_TRUE(second.ok()) << *second.error;
    EXPECT_EQ(second.body, slice(file, 10, 10));
    EXPECT_EQ(second.attempts, 2u);

    auto log = nginx.wait_for_log(3);
    ASSERT_EQ(log.size(), 3u);
    EXPECT_EQ(log[0].status, 206);
    EXPECT_EQ(log[1].status, 429);
    EXPECT_EQ(log[2].status, 206);
    EXPECT_GE(log[2].start() - log[1].end, 0.95);  // Retry-After: 1
}

TEST_F(HttpFetcherTest, RateLimitHeaderIsHonouredAndRetriesAreBounded) {
    HttpOptions o = fast_options();
    o.max_retries = 1;
    auto r = fetch(o, {nginx.url("/ratelimited/a.gguf"), 0, 10});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(r.attempts, 2u);
    EXPECT_EQ(*r.error, "rate limited (HTTP 429) after 2 attempts: " + nginx.url("/ratelimited/a.gguf"));

    auto log = nginx.wait_for_log(2);
    ASSERT_EQ(log.size(), 2u);
    EXPECT_GE(log[1].start() - log[0].end, 0.95);  // RateLimit: "api";r=0;t=1
}

TEST_F(HttpFetcherTest, RetryAfterLongerThanAllowedFailsAtOnce) {
    auto r = fetch(fast_options(), {nginx.url("/wait-long/a.gguf"), 0, 10});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.attempts, 1u);
    EXPECT_EQ(*r.error, "rate limited (HTTP 429); the server asks to wait 3600 s, more than 60: " +
                            nginx.url("/wait-long/a.gguf"));
    EXPECT_EQ(nginx.wait_for_log(1).size(), 1u);
}

TEST_F(HttpFetcherTest, ServiceUnavailableIsRetriedUntilItPasses) {
    auto file = random_bytes(1000, 5);
    nginx.write_file("files/a.gguf", file);
    HttpOptions o = fast_options();
    o.backoff_s = 0.1;  // cumulative waits 0.05-0.1, 0.15-0.3, 0.35-0.7, 0.75-1.5 s: past limit_req's 0.5 s
    HttpFetcher fetcher(o);
    HttpResponse second;
    fetcher.submit({nginx.url("/busy/a.gguf"), 0, 10}, [&](HttpResponse r) {
        EXPECT_TRUE(r.ok());
        fetcher.submit({nginx.url("/busy/a.gguf"), 10, 10}, [&](HttpResponse r2) { second = std::move(r2); });
    });
    fetcher.run();
    ASSERT_TRUE(second.ok()) << *second.error;
    EXPECT_EQ(second.body, slice(file, 10, 10));
    EXPECT_GE(second.attempts, 2u);
    EXPECT_LE(second.attempts, 5u);

    auto log = nginx.wait_for_log(1 + second.attempts);
    ASSERT_EQ(log.size(), 1 + second.attempts);
    EXPECT_EQ(log.front().status, 206);
    EXPECT_EQ(log.back().status, 206);
    for (size_t i = 1; i + 1 < log.size(); ++i) EXPECT_EQ(log[i].status, 503);
}

TEST_F(HttpFetcherTest, ServiceUnavailableRetriesAreBoundedWithGrowingBackoff) {
    HttpOptions o = fast_options();
    o.max_retries = 3;
    o.backoff_s = 0.1;
    auto r = fetch(o, {nginx.url("/unavailable/a.gguf"), 0, 10});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(r.attempts, 4u);
    EXPECT_EQ(*r.error, "server error (HTTP 503) after 4 attempts: " + nginx.url("/unavailable/a.gguf"));

    auto log = nginx.wait_for_log(4);
    ASSERT_EQ(log.size(), 4u);
    for (size_t i = 1; i < log.size(); ++i) {
        double gap = log[i].start() - log[i - 1].end, nominal = 0.1 * (1 << (i - 1));
        EXPECT_GE(gap, nominal / 2 - 0.005) << "retry " << i;  // jittered to 50-100% of the doubling delay
        EXPECT_LE(gap, nominal + 0.25) << "retry " << i;
    }
}

TEST_F(HttpFetcherTest, RetriesWaitOnTimersWithoutBlockingOtherTransfers) {
    nginx.write_file("files/a.gguf", random_bytes(1000, 6));
    HttpOptions o = fast_options();
    o.per_host = 1;
    o.max_retries = 1;
    o.backoff_s = 0.6;  // the retry waits 0.3-0.6 s
    HttpFetcher fetcher(o);
    int good = 0;
    fetcher.submit({nginx.url("/unavailable/a.gguf"), 0, 10}, [&](HttpResponse r) { EXPECT_FALSE(r.ok()); });
    for (int i = 0; i < 4; ++i)
        fetcher.submit({nginx.url("/files/a.gguf"), static_cast<uint64_t>(i), 10}, [&](HttpResponse r) { good += r.ok(); });
    fetcher.run();
    EXPECT_EQ(good, 4);

    auto log = nginx.wait_for_log(6);
    ASSERT_EQ(log.size(), 6u);
    std::vector<AccessLogEntry> failed;
    std::copy_if(log.begin(), log.end(), std::back_inserter(failed), [](const auto& e) { return e.status == 503; });
    ASSERT_EQ(failed.size(), 2u);
    for (const auto& e : log) {  // with one transfer per host, the files went while the retry waited
        if (e.status == 206) {
            EXPECT_LT(e.end, failed[1].start());
        }
    }
}

TEST_F(HttpFetcherTest, ConnectionClosedWithoutAnswerIsRetriedThenReported) {
    HttpOptions o = fast_options();
    o.max_retries = 2;
    auto r = fetch(o, {nginx.url("/reset/a.gguf"), 0, 10});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.attempts, 3u);
    EXPECT_EQ(*r.error, "transfer failed (Empty reply from server) after 3 attempts: " + nginx.url("/reset/a.gguf"));
    auto log = nginx.wait_for_log(3);
    ASSERT_EQ(log.size(), 3u);
    for (const auto& e : log) EXPECT_EQ(e.status, 444);
}

TEST_F(HttpFetcherTest, TruncatedBodyIsRetriedThenReported) {
    HttpOptions o = fast_options();
    o.max_retries = 2;
    auto r = fetch(o, {nginx.url("/short/a.gguf"), 0, 100});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.attempts, 3u);
    EXPECT_EQ(*r.error, "truncated: Content-Range promised 100 bytes, got 10 after 3 attempts: " +
                            nginx.url("/short/a.gguf"));
    EXPECT_EQ(r.bytes_received, 30u);
    EXPECT_EQ(nginx.wait_for_log(3).size(), 3u);
}

TEST_F(HttpFetcherTest, ContentRangeOtherThanAskedIsAnError) {
    auto r = fetch(fast_options(), {nginx.url("/shifted/a.gguf"), 0, 10});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.attempts, 1u);
    EXPECT_EQ(*r.error, "asked for bytes=0-9, server sent bytes 5-14: " + nginx.url("/shifted/a.gguf"));
    r = fetch(fast_options(), {nginx.url("/short/a.gguf"), 0, 50});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(*r.error, "asked for bytes=0-49, server sent bytes 0-99: " + nginx.url("/short/a.gguf"));
    EXPECT_EQ(nginx.wait_for_log(2).size(), 2u);
}

TEST_F(HttpFetcherTest, RedirectToAnotherHostDropsTheToken) {
    auto file = random_bytes(5000, 7);
    nginx.write_file("files/model.gguf", file);
    HttpOptions o = fast_options();
    o.token = kToken;
    o.first_hop_headers = {"x-linked-etag", "x-repo-commit"};  // x-linked-size is sent too, but not asked for
    auto r = fetch(o, {nginx.url("/redirect/model.gguf"), 100, 200});
    ASSERT_TRUE(r.ok()) << *r.error;
    EXPECT_EQ(r.status, 206);
    EXPECT_EQ(r.body, slice(file, 100, 200));
    EXPECT_EQ(r.total_size, 5000u);
    EXPECT_EQ(r.final_url, nginx.url2("/files/model.gguf"));
    using Headers = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(r.first_hop, (Headers{{"x-linked-etag", "\"linked-etag\""}, {"x-repo-commit", "abc123"}}));
    EXPECT_EQ(r.first_etag, "\"first-hop\"");
    EXPECT_NE(r.etag, r.first_etag);
    EXPECT_EQ(r.requests, 2u);
    EXPECT_EQ(fetcher_requests, 2u);

    auto log = nginx.wait_for_log(2);
    ASSERT_EQ(log.size(), 2u);
    auto first = on_port(log, nginx.port()), second = on_port(log, nginx.port2());
    ASSERT_EQ(first.size(), 1u);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(first[0].status, 302);
    EXPECT_EQ(first[0].authorization, "Bearer " + kToken);
    EXPECT_EQ(second[0].status, 206);
    EXPECT_EQ(second[0].range, "bytes=100-299");
    EXPECT_EQ(second[0].authorization, "-");  // another port is another origin
}

TEST_F(HttpFetcherTest, RedirectOnTheSameHostKeepsTheToken) {
    nginx.write_file("files/model.gguf", random_bytes(5000, 8));
    HttpOptions o = fast_options();
    o.token = kToken;
    auto r = fetch(o, {nginx.url("/hop/model.gguf"), 0, 10});
    ASSERT_TRUE(r.ok()) << *r.error;
    EXPECT_EQ(r.final_url, nginx.url("/files/model.gguf"));
    auto log = nginx.wait_for_log(2);
    ASSERT_EQ(log.size(), 2u);
    for (const auto& e : log) EXPECT_EQ(e.authorization, "Bearer " + kToken);
}

TEST_F(HttpFetcherTest, RedirectLoopStopsAtMaxRedirects) {
    HttpOptions o = fast_options();
    o.max_redirects = 3;
    auto r = fetch(o, {nginx.url("/loop/a.gguf"), 0, 10});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.attempts, 1u);
    EXPECT_EQ(*r.error, "too many redirects (more than 3): " + nginx.url("/loop/a.gguf"));
    EXPECT_EQ(r.requests, 4u);
    EXPECT_EQ(nginx.wait_for_log(4).size(), 4u);
}

TEST_F(HttpFetcherTest, StalledTransferTimesOutAndIsRetriedOnce) {
    nginx.write_file("files/a.gguf", random_bytes(64 * KiB, 9));
    HttpOptions o = fast_options();
    o.timeout_s = 0.5;
    o.max_retries = 1;
    auto r = fetch(o, {nginx.url("/slow/a.gguf"), 0, 64 * KiB});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.attempts, 2u);
    EXPECT_NE(r.error->find("transfer failed (Operation timed out after"), std::string::npos) << *r.error;
    EXPECT_NE(r.error->find("after 2 attempts: " + nginx.url("/slow/a.gguf")), std::string::npos) << *r.error;
    EXPECT_LT(r.bytes_received, 2 * 16 * KiB);

    auto log = nginx.wait_for_log(2);
    ASSERT_EQ(log.size(), 2u);
    for (const auto& e : log) EXPECT_LT(e.body_bytes, 64 * KiB);
}

TEST_F(HttpFetcherTest, RequestsPerMinuteSpacesRequests) {
    nginx.write_file("files/a.gguf", random_bytes(1000, 10));
    HttpOptions o = fast_options();
    o.max_requests_per_minute = 600;  // one every 0.1 s
    HttpFetcher fetcher(o);
    const double run_start = seconds_since_epoch();  // before the first request can take its slot
    for (int i = 0; i < 6; ++i)
        fetcher.submit({nginx.url("/files/a.gguf"), static_cast<uint64_t>(i), 10}, [](HttpResponse r) {
            EXPECT_TRUE(r.ok());
        });
    fetcher.run();

    auto log = nginx.wait_for_log(6);
    ASSERT_EQ(log.size(), 6u);
    std::vector<double> starts;
    for (const auto& e : log) starts.push_back(e.start());
    std::sort(starts.begin(), starts.end());
    // The k-th request takes its slot at least 0.1 k s after the first took one, after run_start: the
    // k-th arrival at nginx is no earlier; a delay on a loaded machine (a slow connect, nginx not
    // scheduled) only makes it later.
    // 2 ms: $msec and $request_time are whole milliseconds.
    for (size_t k = 0; k < starts.size(); ++k)
        EXPECT_GE(starts[k] - run_start, 0.1 * static_cast<double>(k) - 0.002) << "request " << k;
}

TEST_F(HttpFetcherTest, IfNoneMatchAnswers304WithoutBody) {
    nginx.write_file("files/a.gguf", random_bytes(1000, 11));
    auto first = fetch(fast_options(), {nginx.url("/files/a.gguf"), 0, 100});
    ASSERT_TRUE(first.ok());
    ASSERT_FALSE(first.etag.empty());
    auto r = fetch(fast_options(), {nginx.url("/files/a.gguf"), 0, 100, first.etag});
    ASSERT_TRUE(r.ok()) << *r.error;
    EXPECT_EQ(r.status, 304);
    EXPECT_TRUE(r.body.empty());
    auto log = nginx.wait_for_log(2);
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[1].status, 304);
    EXPECT_EQ(log[1].body_bytes, 0u);
    EXPECT_EQ(log[1].if_none_match, first.etag);
}

TEST_F(HttpFetcherTest, TreeListingPagesFollowLinkNext) {
    const std::string page1 = R"([{"type":"file","path":"a.gguf","size":1000}])";
    const std::string page2 = R"([{"type":"file","path":"b.safetensors","size":2000}])";
    nginx.write_file("tree/page.json", page1);
    nginx.write_file("tree/page2.json", page2);
    HttpFetcher fetcher(fast_options());
    std::vector<std::string> pages;
    std::function<void(HttpResponse)> on_page = [&](HttpResponse r) {
        ASSERT_TRUE(r.ok()) << *r.error;
        EXPECT_EQ(r.status, 200);
        pages.emplace_back(r.body.begin(), r.body.end());
        if (r.link_next) fetcher.submit({*r.link_next}, on_page);
    };
    fetcher.submit({nginx.url("/api/models/owner/repo/tree/main")}, on_page);
    fetcher.run();
    EXPECT_EQ(pages, (std::vector<std::string>{page1, page2}));

    auto log = nginx.wait_for_log(2);
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[0].target, "/api/models/owner/repo/tree/main");
    EXPECT_EQ(log[1].target, "/api/models/owner/repo/tree/main?cursor=2");
    for (const auto& e : log) EXPECT_EQ(e.range, "-");  // a plain GET
}

TEST_F(HttpFetcherTest, ConnectionRefusedIsRetriedThenReported) {
    std::string url = "http://127.0.0.1:" + std::to_string(free_port()) + "/files/a.gguf";
    HttpOptions o = fast_options();
    o.max_retries = 2;
    auto r = fetch(o, {url, 0, 10});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.attempts, 3u);
    EXPECT_EQ(r.requests, 0u);  // nothing was sent
    EXPECT_NE(r.error->find("Couldn't connect to server"), std::string::npos) << *r.error;
    EXPECT_NE(r.error->find("after 3 attempts: " + url), std::string::npos) << *r.error;
}

}  // namespace
}  // namespace modelcat::test
