// The header parsers the fetcher acts on, on the values servers send.
#include <gtest/gtest.h>

#include "io/http_headers.hpp"

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

    for (const char* bad : {"", "bytes", "bytes 5-4/10", "bytes 0-10/10", "bytes */*", "items 0-1/2", "bytes 0-x/9",
                            "bytes -1-5/10", "bytes 0-18446744073709551616/*"})
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
