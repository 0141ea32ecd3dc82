// Crawling the Hub as the Hub would have it, against a replica (hub_replica.py):
// one resolve per file, reads to the storage host without the token, paced by
// the budgets the replica announces. Requests are counted from its own log.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include "hub_replica.hpp"
#include "kit/llama31.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

const char* const kVocab = "ggml-vocab-llama-spm.gguf";  // a real 724 KB vocabulary-only GGUF

class HubCrawl : public ::testing::Test {
protected:
    void start(test::ReplicaOptions o = {}) { hub_ = std::make_unique<test::HubReplica>(tmp_.path(), o); }
    test::CommandResult crawl(const std::string& args, const std::string& prefix = "") {
        return test::run_modelcat("crawl --quiet --db " + db_.string() + " --hf-endpoint " + hub_->endpoint() + " " + args, prefix);
    }
    void add_vocab(const std::string& repo_path) {
        fs::create_directories((hub_->root() / repo_path).parent_path());
        fs::copy_file(test::fixtures_dir() / kVocab, hub_->root() / repo_path);
    }
    // The replica logs a request as it answers: give the last answer a moment to be written.
    std::vector<test::ReplicaRequest> log() {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        return hub_->log();
    }
    // Requests per file: resolver calls (Hub) and storage reads, keyed by the file's path.
    struct PerFile {
        unsigned resolves = 0, reads = 0, refused = 0;
        uint64_t bytes = 0;
    };
    static std::map<std::string, PerFile> per_file(const std::vector<test::ReplicaRequest>& log) {
        std::map<std::string, PerFile> m;
        for (const auto& r : log) {
            if (r.host == "hub" && r.target.find("/resolve/") != std::string::npos) {
                std::string t = r.target;
                size_t at = t.find("/resolve/");
                std::string repo = t.substr(0, at), rest = t.substr(at + 9);
                ++m[repo + "/" + rest.substr(rest.find('/') + 1)].resolves;
            } else if (r.host == "storage") {
                PerFile& f = m[r.target.substr(0, r.target.find('?'))];
                ++f.reads;
                f.bytes += r.bytes;
                if (r.status == 403) ++f.refused;
            }
        }
        return m;
    }
    test::TempDir tmp_;
    fs::path db_ = tmp_ / "catalog.db";
    std::unique_ptr<test::HubReplica> hub_;
};

TEST_F(HubCrawl, OneResolvePerFileThenStorageReadsWithoutTheToken) {
    start();
    fs::create_directories(hub_->root() / "owner/llama");
    for (const char* q : {"Q4_K_M", "Q8_0"})
        kit::llama31_quant(q).write(hub_->root() / "owner/llama" / ("Llama-3.1-8B-" + std::string(q) + ".gguf"));
    add_vocab("owner/llama/vocab/llama-spm.gguf");
    ::setenv("HF_TOKEN", "secret-token", 1);
    test::CommandResult r = crawl("--json-summary hf://owner/llama");
    ::unsetenv("HF_TOKEN");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto entries = log();
    for (const auto& e : entries) {
        SCOPED_TRACE(e.host + " " + e.target);
        EXPECT_EQ(e.authorization, e.host == "hub" ? "Bearer secret-token" : "-");  // the token on the Hub host only
    }
    auto files = per_file(entries);
    ASSERT_EQ(files.size(), 3u);
    for (const auto& [path, f] : files) {
        SCOPED_TRACE(path);
        EXPECT_EQ(f.resolves, 1u);
        EXPECT_LE(f.reads, 3u);
        if (path.find("Llama-3.1") != std::string::npos) {
            EXPECT_GE(f.bytes, kit::kLlama31DataStart);
            EXPECT_LE(double(f.bytes), 1.05 * kit::kLlama31DataStart);
        } else {
            EXPECT_EQ(f.reads, 1u);  // under 1 MiB: one read
        }
    }
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE resolver_calls = 1 AND storage_reads BETWEEN 1 AND 3"
                  " AND length(sha256) = 64 AND length(xet_hash) = 64 AND final_url NOT LIKE '%Signature%'"),
              "3");
    EXPECT_EQ(test::sql_value(db_, "SELECT api_calls || ' ' || resolver_calls FROM crawls WHERE crawl_id = 1"), "1 3");
    EXPECT_NE(r.out.find("\"resolver_calls\": 3"), std::string::npos) << r.out;

    // unchanged: the listing's hashes say so, no resolve at all
    size_t before = entries.size();
    r = crawl("--json-summary hf://owner/llama");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    entries = log();
    ASSERT_EQ(entries.size(), before + 1);
    EXPECT_NE(entries.back().target.find("/api/models/owner/llama/tree/main"), std::string::npos);
    EXPECT_EQ(test::sql_value(db_, "SELECT files_unchanged || ' ' || requests || ' ' || api_calls || ' ' || resolver_calls FROM crawls"
                  " WHERE crawl_id = 2"),
              "3 1 1 0");
    EXPECT_NE(r.out.find("\"requests\": 1"), std::string::npos) << r.out;
}

TEST_F(HubCrawl, ExpiredPresignedUrlIsResolvedAgainOnce) {
    start({.first_url_reads = 1});  // the second read of each file meets an expired signature
    fs::create_directories(hub_->root() / "owner/llama");
    kit::llama31_quant("Q4_K_S").write(hub_->root() / "owner/llama/Llama-3.1-8B-Q4_K_S.gguf");
    test::CommandResult r = crawl("hf://owner/llama");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto files = per_file(log());
    ASSERT_EQ(files.size(), 1u);
    const PerFile& f = files.begin()->second;
    EXPECT_EQ(f.resolves, 2u);  // the first, and one more after the 403
    EXPECT_EQ(f.refused, 1u);
    EXPECT_EQ(f.reads, 4u);  // the header's three reads, and the refused one again
    EXPECT_EQ(test::sql_value(db_, "SELECT tensor_count FROM files"), "292");  // the whole header, read across two URLs
    EXPECT_EQ(test::sql_value(db_, "SELECT resolver_calls || ' ' || storage_reads FROM files"), "2 4");
}

// Before: "gated or private (HTTP 403); the token does not grant access" for Q6_K, 7 of 8 catalogued.
// The storage host's 403 after the Hub's 302 is the signed URL gone stale, not the Hub refusing.
TEST_F(HubCrawl, APresignedUrlExpiredBeforeItsFirstReadIsResolvedAgain) {
    start({.expired_first_url = "Q6_K"});
    kit::write_llama31_lineup(hub_->root() / "owner/llama");
    test::CommandResult r = crawl("hf://owner/llama");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("gated"), std::string::npos) << r.err;
    auto files = per_file(log());
    ASSERT_EQ(files.size(), 8u);
    for (const auto& [path, f] : files) {
        SCOPED_TRACE(path);
        const bool stale = path.find("Q6_K") != std::string::npos;
        EXPECT_EQ(f.resolves, stale ? 2u : 1u);  // Q6_K: the first, and one more after the storage host's 403
        EXPECT_EQ(f.refused, stale ? 1u : 0u);
    }
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok'"), "8");
    EXPECT_EQ(test::sql_value(db_, "SELECT resolver_calls FROM files WHERE location LIKE '%Q6_K%'"), "2");
}

TEST_F(HubCrawl, PacedByTheAnnouncedBudgetWithoutA429) {
    // 45 files, 20 resolver calls per 2 s window: three windows' worth, no 429
    start({.api_quota = 3, .resolver_quota = 20, .window_s = 2});
    std::string inputs;
    for (int repo = 0; repo < 5; ++repo) {
        for (int i = 0; i < 9; ++i) add_vocab("owner/repo" + std::to_string(repo) + "/v" + std::to_string(i) + ".gguf");
        inputs += " hf://owner/repo" + std::to_string(repo);
    }
    test::CommandResult r = crawl("--json-summary" + inputs);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto entries = log();
    unsigned resolves = 0, listings = 0, limited = 0;
    for (const auto& e : entries) {
        if (e.status == 429) ++limited;
        if (e.host == "hub") (e.target.starts_with("/api/") ? listings : resolves)++;
    }
    EXPECT_EQ(limited, 0u);
    EXPECT_EQ(resolves, 45u);
    EXPECT_EQ(listings, 5u);  // more than one window's 3 api calls, too
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok' AND resolver_calls = 1 AND storage_reads = 1"), "45");
    // three windows of resolves: the crawl waited for two resets
    EXPECT_GE(entries.back().time - entries.front().time, 4.0);
}

TEST_F(HubCrawl, GatedRepoMasksItsHashesWhichMeanUnknownNotChanged) {
    start();
    add_vocab("owner/gated-model/v.gguf");
    test::CommandResult r = crawl("hf://owner/gated-model");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("gated or private (HTTP 401); set HF_TOKEN or --token-file"), std::string::npos) << r.err;
    ::setenv("HF_TOKEN", "secret-token", 1);
    r = crawl("hf://owner/gated-model");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // the identity comes from the redirect's headers, not the listing's masks
    EXPECT_EQ(test::sql_value(db_, "SELECT length(sha256) = 64 AND length(xet_hash) = 64 AND sha256 NOT LIKE '%*%' FROM files"), "1");
    r = crawl("hf://owner/gated-model");
    ::unsetenv("HF_TOKEN");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT files_unchanged || ' ' || files_changed FROM crawls WHERE crawl_id = 3"), "1 0");
}

// 30 files at 10 resolver calls per 1 s: a crawl stopped after about one window resumes where it stopped.
class StoppedHubCrawl : public HubCrawl {
protected:
    void SetUp() override {
        start({.resolver_quota = 10, .window_s = 1});
        for (int repo = 0; repo < 3; ++repo) {
            for (int i = 0; i < 10; ++i) add_vocab("owner/repo" + std::to_string(repo) + "/v" + std::to_string(i) + ".gguf");
            inputs_ += " hf://owner/repo" + std::to_string(repo);
        }
    }
    // The second crawl reads the rest: every file resolved exactly once over both.
    void resume_reads_each_file_once() {
        test::CommandResult r = crawl("-j 4" + inputs_);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(test::sql_value(db_, "SELECT status FROM crawls WHERE crawl_id = 2"), "finished");
        const auto entries = log();
        auto files = per_file(entries);
        unsigned resolved = 0;
        for (const auto& [path, f] : files) {
            if (f.resolves == 0) continue;
            ++resolved;
            std::string seen;  // every request for the file, to tell a repeat from a retry
            for (const auto& e : entries)
                if (e.target.find(path.substr(path.rfind('/'))) != std::string::npos)
                    seen += "\n  " + std::to_string(e.time) + " " + e.host + " " + std::to_string(e.status) + " " + e.target;
            EXPECT_EQ(f.resolves, 1u) << path << seen;
        }
        EXPECT_EQ(resolved, 30u);
        EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok'"), "30");
        // the second crawl knew what the first was told of the window (rate_budgets): no 429 either
        unsigned limited = 0;
        for (const auto& e : entries) limited += e.status == 429;
        EXPECT_EQ(limited, 0u);
        EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM rate_budgets WHERE budget = 'resolvers' AND crawl_id = 2"), "1");
    }
    std::string inputs_;
};

TEST_F(StoppedHubCrawl, SigintFinishesModelsInFlightAndTheNextCrawlResumes) {
    // SIGINT once the first model is in (a point reached, not a delay: the machine may be loaded)
    const std::string db = db_.string();
    const std::string count = "sqlite3 -readonly " + db + " \"SELECT count(*) FROM files WHERE status = 'ok'\" 2>/dev/null";
    test::CommandResult r = test::run_command(
        "{ " + test::modelcat_binary() + " crawl --quiet --db " + db + " --hf-endpoint " + hub_->endpoint() + " -j 4" +
        inputs_ + " & pid=$!; while kill -0 $pid 2>/dev/null && [ \"$(" + count + " || echo 0)\" -lt 1 ]; do sleep 0.02;" +
        " done; kill -INT $pid; wait $pid; }");
    EXPECT_EQ(r.exit_code, 130) << r.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT status FROM crawls WHERE crawl_id = 1"), "interrupted");
    int done = std::stoi(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok'"));
    EXPECT_GT(done, 0);
    EXPECT_LT(done, 30);
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM errors"), "0");  // models in flight finished, none cut short
    resume_reads_each_file_once();
}

TEST_F(StoppedHubCrawl, DeadlineStopsCleanly) {
    test::CommandResult r = crawl("-j 4 --json-summary --deadline 1s" + inputs_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"interrupted\": true"), std::string::npos) << r.out;
    EXPECT_EQ(test::sql_value(db_, "SELECT status FROM crawls WHERE crawl_id = 1"), "interrupted");
    EXPECT_LT(std::stoi(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok'")), 30);
    resume_reads_each_file_once();
}

}  // namespace
