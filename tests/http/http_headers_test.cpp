// The header parsers the fetcher acts on, on the values servers send, and the budgets those announce.
#include <gtest/gtest.h>

#include "io/http_headers.hpp"
#include "io/rate_budget.hpp"

namespace modelcat::io::http {
namespace {

TEST(HttpHeaders, ContentRange) {
    auto cr = parse_content_range("bytes 100-299/5000");
    ASSERT_TRUE(cr);
    EXPECT_TRUE(cr->satisfied);
    EXPECT_EQ(cr->first, 100u);
    EXPECT_EQ(cr->last, 299u);
    EXPECT_EQ(cr->total, 5000u);

    cr = parse_content_range("bytes 0-9/*");
    ASSERT_TRUE(cr);
    EXPECT_FALSE(cr->total);

    cr = parse_content_range("bytes */1000");  // a 416's
    ASSERT_TRUE(cr);
    EXPECT_FALSE(cr->satisfied);
    EXPECT_EQ(cr->total, 1000u);

    cr = parse_content_range("bytes 0-9/9223372036854775807");  // the largest size a catalogue can hold
    ASSERT_TRUE(cr);
    EXPECT_EQ(cr->total, 9223372036854775807u);

    for (const char* bad : {"", "bytes", "bytes 5-4/10", "bytes 0-10/10", "bytes */*", "items 0-1/2", "bytes 0-x/9",
                            "bytes -1-5/10", "bytes 0-18446744073709551616/*", "bytes 0-9/18446744073709551615",
                            "bytes 0-9/9223372036854775808", "bytes */18446744073709551615"})
        EXPECT_FALSE(parse_content_range(bad)) << bad;
}

TEST(HttpHeaders, RetryAfter) {
    EXPECT_EQ(parse_retry_after("120", 0), 120.0);
    EXPECT_EQ(parse_retry_after(" 0 ", 0), 0.0);
    // Sun, 06 Nov 1994 08:49:37 GMT is 784111777 s after the epoch.
    EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111777 - 30), 30.0);
    EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111777 + 30), 0.0);  // in the past
    EXPECT_FALSE(parse_retry_after("soon", 0));
    EXPECT_FALSE(parse_retry_after("-5", 0));
}

TEST(HttpHeaders, RateLimit) {
    auto rl = parse_ratelimit("\"api\";r=0;t=55");  // the Hub's
    EXPECT_EQ(rl.remaining, 0u);
    EXPECT_EQ(rl.reset_s, 55.0);
    rl = parse_ratelimit("limit=100, remaining=7, reset=30");  // the IETF draft's
    EXPECT_EQ(rl.remaining, 7u);
    EXPECT_EQ(rl.reset_s, 30.0);
    rl = parse_ratelimit("\"api\"");
    EXPECT_FALSE(rl.remaining);
    EXPECT_FALSE(rl.reset_s);
    EXPECT_EQ(parse_ratelimit("\"resolvers\";r=2987;t=189").name, "resolvers");
}

TEST(HttpHeaders, RateLimitPolicy) {
    auto p = parse_ratelimit("\"fixed window\";\"resolvers\";q=3000;w=300");  // the Hub's
    EXPECT_EQ(p.name, "resolvers");
    EXPECT_EQ(p.quota, 3000u);
    EXPECT_EQ(p.window_s, 300.0);
    EXPECT_FALSE(p.remaining);
}

// Budgets follow the announced counts; time is passed in, so nothing here waits.
TEST(RateBudgets, HoldsRequestsWhenTheAnnouncedBudgetIsSpentUntilItsReset) {
    using std::chrono::seconds;
    RateBudgets b;
    const std::string hub = "https://hub:443";
    auto t0 = RateBudgets::Clock::time_point{} + std::chrono::hours(1);
    EXPECT_TRUE(b.has_room(hub, "resolvers", t0));  // nothing known: one at a time
    uint64_t first = b.sent(hub, "resolvers");
    EXPECT_FALSE(b.has_room(hub, "resolvers", t0));
    EXPECT_TRUE(b.has_room(hub, "", t0));      // a request that spends no budget
    EXPECT_TRUE(b.has_room(hub, "api", t0));   // another budget
    EXPECT_FALSE(b.answered(hub, "resolvers", first, "\"resolvers\";r=2;t=10", "\"fixed window\";\"resolvers\";q=3;w=10", t0));
    uint64_t second = b.sent(hub, "resolvers");
    EXPECT_TRUE(b.has_room(hub, "resolvers", t0));
    b.sent(hub, "resolvers");
    EXPECT_FALSE(b.has_room(hub, "resolvers", t0));  // two left, two sent
    EXPECT_EQ(b.next_reset(t0), t0 + seconds(11));   // the announced reset, plus a second for rounding
    // the second's answer says 1 left, but the third, sent after it, may not be counted yet: none left
    EXPECT_EQ(b.answered(hub, "resolvers", second, "\"resolvers\";r=1;t=9", "", t0 + seconds(1)), 10.0);
    EXPECT_FALSE(b.has_room(hub, "resolvers", t0 + seconds(10)));
    EXPECT_TRUE(b.has_room(hub, "resolvers", t0 + seconds(11)));  // reset: the policy's quota again
    for (int i = 0; i < 3; ++i) b.sent(hub, "resolvers");
    EXPECT_FALSE(b.has_room(hub, "resolvers", t0 + seconds(12)));
    EXPECT_TRUE(b.has_room("https://other:443", "resolvers", t0 + seconds(12)));  // budgets are per host
}

TEST(RateBudgets, WhenNothingIsInFlightTheLowestAnnouncedCountIsExact) {
    RateBudgets b;
    auto t0 = RateBudgets::Clock::now();
    const char* policy = "\"fixed window\";\"api\";q=10;w=60";
    b.answered("h", "api", b.sent("h", "api"), "\"api\";r=9;t=60", policy, t0);
    uint64_t a = b.sent("h", "api"), c = b.sent("h", "api");
    b.answered("h", "api", a, "\"api\";r=7;t=60", policy, t0);  // the server counted c first: 7 is exact...
    b.answered("h", "api", c, "\"api\";r=8;t=60", policy, t0);  // ...but c was discounted again until its answer
    for (int i = 0; i < 7; ++i) {
        ASSERT_TRUE(b.has_room("h", "api", t0)) << i;
        b.sent("h", "api");
    }
    EXPECT_FALSE(b.has_room("h", "api", t0));
}

TEST(RateBudgets, AServerThatAnnouncesNothingIsNeverHeld) {
    RateBudgets b;
    auto t0 = RateBudgets::Clock::now();
    EXPECT_FALSE(b.answered("h", "api", b.sent("h", "api"), "", "", t0));
    for (int i = 0; i < 100; ++i) {
        EXPECT_TRUE(b.has_room("h", "api", t0));
        b.sent("h", "api");
    }
}

TEST(RateBudgets, WhatOneCrawlWasToldTheNextOneHonoursUntilTheReset) {
    using std::chrono::seconds;
    RateBudgets first;
    auto t0 = RateBudgets::Clock::now();
    first.answered("h", "resolvers", first.sent("h", "resolvers"), "\"resolvers\";r=0;t=20",
                   "\"fixed window\";\"resolvers\";q=50;w=30", t0);
    first.answered("h", "api", first.sent("h", "api"), "", "", t0);  // silent: nothing to hand on
    auto states = first.states(t0);
    ASSERT_EQ(states.size(), 1u);
    EXPECT_EQ(states[0].remaining, 0u);
    EXPECT_EQ(states[0].quota, 50u);
    RateBudgets next;  // another process: another steady clock, the same wall clock
    auto t1 = RateBudgets::Clock::time_point{} + std::chrono::hours(5);
    next.restore(states[0], t1);
    EXPECT_FALSE(next.has_room("h", "resolvers", t1));
    EXPECT_FALSE(next.has_room("h", "resolvers", t1 + seconds(19)));
    EXPECT_TRUE(next.has_room("h", "resolvers", t1 + seconds(22)));  // reset: the quota again
    BudgetState over = states[0];
    over.reset = std::chrono::system_clock::now() - seconds(1);
    RateBudgets later;
    later.restore(over, t1);  // a window already over tells nothing
    EXPECT_TRUE(later.has_room("h", "resolvers", t1));
}

TEST(HttpHeaders, LinkNext) {
    EXPECT_EQ(parse_link_next("<https://huggingface.co/api/models/a/b/tree/main?cursor=xyz>; rel=\"next\""),
              "https://huggingface.co/api/models/a/b/tree/main?cursor=xyz");
    EXPECT_EQ(parse_link_next("<https://x/1>; rel=\"prev\", <https://x/3?a=1,2>; rel=next"), "https://x/3?a=1,2");
    EXPECT_FALSE(parse_link_next("<https://x/1>; rel=\"prev\""));
    EXPECT_FALSE(parse_link_next("<https://x/1>; rel=\"nextpage\""));
    EXPECT_FALSE(parse_link_next(""));
}

}  // namespace
}  // namespace modelcat::io::http
