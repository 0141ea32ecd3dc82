// Servers that fight back, against a real nginx through the binary under a
// timeout: listings that page forever or link back to themselves, a commit
// header climbing out of the repository, listing paths hiding ".." in
// percent-escapes, a Retry-After a person must be able to interrupt, and a
// server sending one byte a second. Each costs only its input, in bounded time.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "kit/gguf_writer.hpp"
#include "kit/llama31.hpp"
#include "nginx.hpp"
#include "support.hpp"

using namespace modelcat;

namespace {

class HostileServers : public ::testing::Test {
protected:
    void SetUp() override { kit::GgufWriter().write(nginx_.root() / "files/good.gguf"); }
    // A crawl of `inputs` and, beside them, a good file that must be catalogued all the same.
    test::CommandResult crawl(const std::string& inputs, const std::string& flags = "") {
        return test::run_modelcat("crawl --json-summary --db " + (tmp_ / "c.db").string() + " --hf-endpoint " + nginx_.url("") +
                                      " " + flags + " " + inputs + " " + nginx_.url("/files/good.gguf"),
                                  "timeout 60 ");
    }
    // A crawl of `input` that fails it with `error`, the good file catalogued all the same.
    test::CommandResult fails_alone(const std::string& input, const std::string& error) {
        test::CommandResult r = crawl(input);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find(error), std::string::npos) << r.err;
        EXPECT_NE(r.out.find("\"files_ok\": 1"), std::string::npos) << r.out;
        return r;
    }
    size_t requests_for(const std::string& path_start) const {
        size_t n = 0;
        for (const auto& e : nginx_.access_log()) n += e.target.starts_with(path_start);
        return n;
    }

    test::Nginx nginx_;
    test::TempDir tmp_;
};

// Before the page cap and loop check: 3,705 listing requests in 120 s, until killed.
TEST_F(HostileServers, AListingPageLinkingToItselfIsReadOnce) {
    test::CommandResult r = crawl("hf://owner/self-link");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("hf://owner/self-link: the listing's next page is one already read"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("\"files_ok\": 1"), std::string::npos) << r.out;
    EXPECT_EQ(requests_for("/api/models/owner/self-link/"), 2u);  // the first page, and its link back to it
}

TEST_F(HostileServers, AListingThatNeverEndsStopsAtThePageCap) {
    test::CommandResult r = crawl("hf://owner/endless");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("hf://owner/endless: the listing has more than 100 pages (the cap)"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("\"files_ok\": 1"), std::string::npos) << r.out;
    EXPECT_EQ(requests_for("/api/models/owner/endless/"), 100u);
}

// Before: the next fetch went to /good/zz/x.gguf on the endpoint, with the token, catalogued as this repo.
TEST_F(HostileServers, ACommitThatIsNotFortyHexDigitsIsRefused) {
    nginx_.write_file("tree/climbing.json", R"([{"type":"file","path":"x.gguf","size":10}])");
    std::filesystem::create_directories(nginx_.root() / "good/zz");
    kit::GgufWriter().write(nginx_.root() / "good/zz/x.gguf");
    test::CommandResult r = crawl("hf://owner/climbing");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("hf://owner/climbing: the server's X-Repo-Commit is not a 40-hex commit"), std::string::npos) << r.err;
    EXPECT_EQ(requests_for("/good/"), 0u);
    EXPECT_NE(r.out.find("\"files_ok\": 1"), std::string::npos) << r.out;
}

TEST_F(HostileServers, ListingPathsWithPercentEscapesOrQueriesAreRefused) {
    for (const std::string path : {"%2e%2e/%2e%2e/good/zz/x.gguf", "a.gguf?q=1#.gguf"}) {
        nginx_.write_file("tree/page.json", R"([{"type":"file","path":")" + path + R"(","size":10}])");
        nginx_.write_file("tree/page2.json", "[]");
        test::CommandResult r = crawl("hf://owner/repo");
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("Hub listing path '" + path + "' escapes the repository"), std::string::npos) << r.err;
    }
    EXPECT_EQ(requests_for("/owner/repo/resolve/"), 0u);
}

TEST_F(HostileServers, ARevisionThatClimbsOrEscapesIsNotAnInput) {
    for (const std::string in : {"hf://owner/repo@../../x", "hf://owner/repo@a%2f..", "hf://owner/repo@v1?x=1", "hf://../repo"}) {
        test::CommandResult r = crawl(in);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find(in + ": not an hf://owner/repo[@revision][/glob] input"), std::string::npos) << r.err;
    }
    EXPECT_EQ(requests_for("/api/"), 0u);
}

// A models API page is checked entry by entry: an id that is not owner/name, a sha that is not a
// commit, a lastModified that is not a time fail the input at the entry's JSON path, before any
// repository is listed.
TEST_F(HostileServers, AModelsPageWithABadEntryFailsItsInputOnly) {
    const std::string good = R"({"id":"a/b","lastModified":"2024-07-23T14:48:36.000Z","sha":"0123456789abcdef0123456789abcdef01234567"})";
    const std::vector<std::pair<std::string, std::string>> pages = {
        {R"({"id":"../x","lastModified":"2024-07-23T14:48:36.000Z","sha":"0123456789abcdef0123456789abcdef01234567"})",
         "at [1].id: Hub models page entry has no \"id\" of the form owner/name"},
        {R"({"id":"a/c","lastModified":"2024-07-23T14:48:36.000Z","sha":"main"})", "at [1].sha: Hub models page entry 'a/c' has no 40-hex"},
        {R"({"id":"a/c","lastModified":"yesterday","sha":"0123456789abcdef0123456789abcdef01234567"})",
         "at [1].lastModified: Hub models page entry 'a/c' has no ISO 8601 UTC"}};
    for (const auto& [entry, message] : pages) {
        nginx_.write_file("models/hostile.json", "[" + good + "," + entry + "]");
        test::CommandResult r = crawl("'hf://hostile/*'");
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("hf://hostile/*: " + message), std::string::npos) << r.err;
        EXPECT_NE(r.out.find("\"files_failed\": 1,"), std::string::npos) << r.out;  // the input; the good file is in
        EXPECT_TRUE(r.out.find("\"files_ok\": 1,") != std::string::npos || r.out.find("\"files_unchanged\": 1,") != std::string::npos)
            << r.out;
    }
    EXPECT_EQ(requests_for("/api/models/"), 0u);  // no repository listed
}

// Before: a 503 with Retry-After 299 was honoured 4 times (20 minutes), a SIGTERM did not end it.
TEST_F(HostileServers, WaitsAreCappedByPatience) {
    nginx_.write_file("files/x.gguf", "GGUF");
    test::CommandResult r = crawl(nginx_.url("/retry-after-30/x.gguf"), "--patience 20");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("server error (HTTP 503); the server asks to wait 30 s, more than 20"), std::string::npos) << r.err;
    EXPECT_EQ(requests_for("/retry-after-30/"), 1u);
}

TEST_F(HostileServers, TheFirstSigtermEndsAWaitWithinASecond) {
    // SIGTERM once the server has answered 503 (a point reached, not a delay: the machine may be loaded)
    const std::string pid_file = (tmp_ / "pid").string();
    // no `timeout` around it: it would send the signal on to its process group too, a second SIGTERM
    FILE* run = popen(("{ " + test::modelcat_binary() + " crawl --db " + (tmp_ / "c.db").string() + " " +
                       nginx_.url("/retry-after-30/x.gguf") + " & echo $! > " + pid_file + "; wait $!; echo \"exit $?\"; } 2>&1")
                          .c_str(),
                      "r");
    ASSERT_NE(run, nullptr);
    for (int i = 0; i < 500 && requests_for("/retry-after-30/") == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(requests_for("/retry-after-30/"), 1u);
    std::ifstream in(pid_file);
    pid_t pid = 0;
    ASSERT_TRUE(in >> pid);
    const auto t0 = std::chrono::steady_clock::now();
    kill(pid, SIGTERM);
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, run)) out.append(buf, n);
    pclose(run);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 3) << out;  // the rest of a 30 s wait, ended by the signal
    EXPECT_NE(out.find("exit 143"), std::string::npos) << out;
    EXPECT_NE(out.find("interrupted while waiting to retry (asked to stop)"), std::string::npos) << out;
}

// Before: 1 byte/s cost 5 attempts of 60 s each (300 s) for one file.
TEST_F(HostileServers, AServerSendingOneByteASecondFailsAtTheLowSpeedLimit) {
    kit::GgufWriter w;
    w.add_kv("general.name", kit::GgufValue::str(std::string(4096, 'n')));
    w.write(nginx_.root() / "files/slow.gguf");
    const auto t0 = std::chrono::steady_clock::now();
    test::CommandResult r = crawl(nginx_.url("/trickle/slow.gguf"));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("too slow"), std::string::npos) << r.err;
    EXPECT_EQ(requests_for("/trickle/"), 1u);
    EXPECT_LT(s, 40);  // one 10 s window, not five 60 s attempts
}

// Before: "Out of memory", as if the machine had run out.
TEST_F(HostileServers, AnOversizedResponseHeaderIsReportedAsSuch) {
    test::CommandResult r = crawl(nginx_.url("/big-header/x.gguf"));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("a response header over libcurl's cap (100 KiB a line, CURL_MAX_HTTP_HEADER)"), std::string::npos) << r.err;
    EXPECT_EQ(requests_for("/big-header/"), 1u);
}

// Before: a request for every shard the name promises, found or not (99,999 after shard 2's 404, 900 MB RSS).
TEST_F(HostileServers, ASplitSetIsReadNoFurtherThanItsFirstMissingShard) {
    kit::GgufWriter().write(nginx_.root() / "files/m-00001-of-00500.gguf");
    fails_alone(nginx_.url("/files/m-00001-of-00500.gguf"), "not found (HTTP 404): " + nginx_.url("/files/m-00002-of-00500.gguf"));
    // shard 1, then no more than the four reads a model has at once: the first missing shard ends the model
    EXPECT_LE(requests_for("/files/m-"), 5u);
}

TEST_F(HostileServers, ASplitNamePromisingMoreShardsThanTheCapIsNotRead) {
    const std::string name = nginx_.url("/files/m-00001-of-99999.gguf");
    kit::GgufWriter().write(nginx_.root() / "files/m-00001-of-99999.gguf");
    fails_alone(name, name + ": the name promises 99999 shards, more than the cap of 10000");
    EXPECT_EQ(requests_for("/files/m-"), 0u);
}

// Before: catalogued with file_bytes -1 (and bits per weight -40.25).
TEST_F(HostileServers, AContentRangeTotalPastAnyFileSizeIsRefused) {
    kit::GgufWriter().write(nginx_.root() / "files/huge.gguf");
    fails_alone(nginx_.url("/huge-total/huge.gguf"), "without a usable Content-Range (\"bytes 0-31/18446744073709551615\")");
    EXPECT_EQ(test::sql_value(tmp_ / "c.db", "SELECT count(*) FROM models WHERE file_bytes < 0"), "0");
    EXPECT_EQ(test::sql_value(tmp_ / "c.db", "SELECT count(*) FROM files WHERE location LIKE '%huge%'"), "0");
}

// Before: unnoticed, the file catalogued as if one size had been said throughout.
TEST_F(HostileServers, AContentRangeTotalThatChangesBetweenReadsFailsTheFile) {
    kit::llama31_quant("Q4_K_M").write(nginx_.root() / "files/moving.gguf");
    test::CommandResult r = fails_alone(nginx_.url("/moving-total/moving.gguf"), "the file changed while being read");
    EXPECT_NE(r.err.find("/99999999999)"), std::string::npos) << r.err;
    EXPECT_EQ(test::sql_value(tmp_ / "c.db", "SELECT count(*) FROM files WHERE location LIKE '%moving%'"), "0");
}

}  // namespace
