// Discovery that costs what changed, against the Hub replica's models API (hub_replica.py):
// hf://AUTHOR/* and hf-search: inputs are listed through /api/models pages sorted by
// lastModified, down to the first repository unchanged since the last crawl; only changed
// repositories are listed and resolved. Every cost is counted from the replica's own log.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "hub_replica.hpp"
#include "kit/gguf_writer.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufValue;
namespace fs = std::filesystem;

namespace {

// What one crawl cost, by kind, from the replica's log.
struct Costs {
    unsigned pages = 0, listings = 0, checks = 0, resolves = 0, refused = 0;
};

class HubDiscovery : public ::testing::Test {
protected:
    void start(test::ReplicaOptions o = {}) { hub_ = std::make_unique<test::HubReplica>(tmp_.path(), o); }
    // A small GGUF in OWNER/REPO, its mtime (the repository's lastModified) `days_ago`.
    void add_repo(const std::string& repo, int days_ago, const std::string& file = "model-Q4_0.gguf", uint32_t blocks = 2) {
        const fs::path path = hub_->root() / repo / file;
        fs::create_directories(path.parent_path());
        kit::GgufWriter w;
        w.add_kv("general.architecture", GgufValue::str("llama"));
        w.add_kv("general.name", GgufValue::str(repo));
        w.add_kv("llama.block_count", GgufValue::u32(blocks));
        w.add_tensor("token_embd.weight", {32, 4}, 0);
        for (uint32_t b = 0; b < blocks; ++b) w.add_tensor("blk." + std::to_string(b) + ".attn_q.weight", {32, 32}, 8);
        w.write(path);
        fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(24 * days_ago));
    }
    test::CommandResult crawl(const std::string& args) {
        return test::run_modelcat("crawl --json-summary --db " + db_.string() + " --hf-endpoint " + hub_->endpoint() + " " + args);
    }
    // The requests since the last call, by kind.
    Costs costs() {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the replica logs as it answers
        const auto log = hub_->log();
        Costs c;
        for (size_t i = seen_; i < log.size(); ++i) {
            const auto& e = log[i];
            if (e.host != "hub") continue;
            if (e.target.starts_with("/api/models?")) ++c.pages;
            else if (e.target.find("/tree/") != std::string::npos) ++c.listings;
            else if (e.target.starts_with("/api/models/")) ++c.checks;
            else if (e.target.find("/resolve/") != std::string::npos) ++c.resolves, c.refused += e.status == 401;
        }
        seen_ = log.size();
        return c;
    }
    std::string crawl_row(int crawl_id) {
        return test::sql_value(db_, "SELECT model_pages || ' ' || repo_listings || ' ' || resolver_calls || ' ' || repos_changed || ' ' ||"
                                    " repos_unchanged || ' ' || repos_gone || ' ' || api_calls FROM crawls WHERE crawl_id = " +
                                        std::to_string(crawl_id));
    }
    std::string repo_file(const std::string& repo) { return hub_->endpoint() + "/" + repo + "/resolve/main/model-Q4_0.gguf"; }

    test::TempDir tmp_;
    fs::path db_ = tmp_ / "catalog.db";
    std::unique_ptr<test::HubReplica> hub_;
    size_t seen_ = 0;
};

std::string repo_name(int i) {
    std::string n = std::to_string(i);
    return "org/model-" + std::string(3 - n.size(), '0') + n;
}

// 200 repositories of one author on pages of 50: the first night lists every one; a night
// with 2 changed costs one page, 2 listings and their 2 files' resolver calls; a deleted
// repository is noticed by a full listing only, and nothing else is marked gone.
TEST_F(HubDiscovery, ANightCostsWhatChanged) {
    start({.models_page_max = 50});
    for (int i = 0; i < 200; ++i) add_repo(repo_name(i), i + 1);
    add_repo("someone-else/model", 1);  // another author: never listed

    test::CommandResult r = crawl("'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Costs c = costs();
    EXPECT_EQ(c.pages, 4u);
    EXPECT_EQ(c.listings, 200u);
    EXPECT_EQ(c.resolves, 200u);
    EXPECT_EQ(crawl_row(1), "4 200 200 200 0 0 204");
    EXPECT_NE(r.err.find("hub repos: 200 changed, 0 unchanged, 0 gone; 4 models API pages, 200 repo listings"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("\"model_pages\": 4, \"repo_listings\": 200"), std::string::npos) << r.out;
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok'"), "200");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM hub_repos WHERE scope = 'hf://org/*' AND status = 'ok' AND length(sha) = 40"
                                   " AND seen_crawl_id = 1"),
              "200");
    EXPECT_EQ(test::sql_value(db_, "SELECT newest = (SELECT last_modified FROM hub_repos WHERE repo = 'org/model-000')"
                                   " AND full_crawl_id = 1 FROM hub_listings"),
              "1");

    // nothing changed: one page, read down to the first repository older than the last listing's newest
    r = crawl("'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    c = costs();
    EXPECT_EQ(c.pages, 1u);
    EXPECT_EQ(c.listings + c.checks + c.resolves, 0u);
    EXPECT_EQ(crawl_row(2), "1 0 0 0 2 0 1");

    // two repositories change upstream
    add_repo(repo_name(10), 0, "model-Q4_0.gguf", 3);
    add_repo(repo_name(20), 0, "model-Q4_0.gguf", 3);
    r = crawl("'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    c = costs();
    EXPECT_LE(c.pages, 2u);
    EXPECT_EQ(c.listings, 2u);
    EXPECT_EQ(c.resolves, 2u);
    EXPECT_EQ(test::sql_value(db_, "SELECT files_changed || ' ' || files_unchanged FROM crawls WHERE crawl_id = 3"), "2 0");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM models WHERE tensor_count = 4"), "2");  // read again: 3 blocks now
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok'"), "200");  // the unchanged stay catalogued
    std::cout << "[ costs ] 2 changed of 200: " << c.pages << " models API pages, " << c.listings << " repo listings, " << c.resolves
              << " resolver calls\n";

    // deleted upstream: an early-stopping night cannot see it, so it says nothing
    fs::remove_all(hub_->root() / repo_name(150));
    r = crawl("'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    c = costs();
    EXPECT_EQ(c.pages, 1u);
    EXPECT_EQ(c.listings + c.checks + c.resolves, 0u);
    EXPECT_EQ(test::sql_value(db_, "SELECT status FROM files WHERE location = '" + repo_file(repo_name(150)) + "'"), "ok");

    // a full listing notices it, asks the Hub (404), and marks its file gone, and only it
    r = crawl("--full-listing 'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    c = costs();
    EXPECT_EQ(c.pages, 4u);
    EXPECT_EQ(c.checks, 1u);
    EXPECT_EQ(c.listings + c.resolves, 0u);
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(location) FROM files WHERE status = 'gone'"), repo_file(repo_name(150)));
    EXPECT_EQ(test::sql_value(db_, "SELECT status || ' ' || gone_crawl_id FROM hub_repos WHERE repo = '" + repo_name(150) + "'"), "gone 5");
    EXPECT_EQ(test::sql_value(db_, "SELECT files_gone || ' ' || repos_gone || ' ' || repos_unchanged FROM crawls WHERE crawl_id = 5"),
              "1 1 199");
    EXPECT_EQ(test::sql_value(db_, "SELECT full_crawl_id FROM hub_listings"), "5");

    // a week after the last full listing, the night reads every page again by itself
    test::run_command("sqlite3 " + db_.string() + " \"UPDATE crawls SET started_at = '2000-01-01T00:00:00.000Z' WHERE crawl_id = 5\"");
    r = crawl("'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    c = costs();
    EXPECT_EQ(c.pages, 4u);
    EXPECT_EQ(c.listings + c.checks + c.resolves, 0u);  // the gone repository is not asked after again
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'gone'"), "1");
}

// Pages that do not come newest first (a server ignoring direction=-1) are read to the end:
// stopping at the first unchanged repository would miss the changed ones after it.
TEST_F(HubDiscovery, PagesOutOfOrderAreReadWhole) {
    start({.models_page_max = 20, .models_oldest_first = true});
    for (int i = 0; i < 60; ++i) add_repo(repo_name(i), i + 1);
    ASSERT_EQ(crawl("'hf://org/*'").exit_code, 0);
    EXPECT_EQ(costs().pages, 3u);
    add_repo(repo_name(7), 0, "model-Q4_0.gguf", 3);
    add_repo(repo_name(30), 0, "model-Q4_0.gguf", 3);
    test::CommandResult r = crawl("'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Costs c = costs();
    EXPECT_EQ(c.pages, 3u);
    EXPECT_EQ(c.listings, 2u);
    EXPECT_EQ(c.resolves, 2u);
    EXPECT_EQ(test::sql_value(db_, "SELECT files_changed || ' ' || repos_unchanged FROM crawls WHERE crawl_id = 2"), "2 58");
}

// A night stopped by SIGINT after its first model leaves every repository it listed pending
// (recorded at no sha it has not read whole): the next night lists them again, and reads only
// the files still missing. No file is resolved twice over the two nights.
TEST_F(HubDiscovery, AStoppedNightLeavesItsReposPending) {
    start({.resolver_quota = 10, .window_s = 1});  // 30 files over three windows: time to stop it
    for (int i = 0; i < 30; ++i) add_repo(repo_name(i), i + 1);
    const std::string count = "sqlite3 -readonly " + db_.string() + " \"SELECT count(*) FROM files WHERE status = 'ok'\" 2>/dev/null";
    test::CommandResult r = test::run_command(
        "{ " + test::modelcat_binary() + " crawl --quiet --db " + db_.string() + " --hf-endpoint " + hub_->endpoint() +
        " -j 4 'hf://org/*' & pid=$!; while kill -0 $pid 2>/dev/null && [ \"$(" + count + " || echo 0)\" -lt 1 ]; do sleep 0.02;" +
        " done; kill -INT $pid; wait $pid; }");
    EXPECT_EQ(r.exit_code, 130) << r.err;
    const int done = std::stoi(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok'"));
    EXPECT_GT(done, 0);
    EXPECT_LT(done, 30);
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM hub_repos WHERE status = 'pending'"), "30");
    Costs first = costs();
    EXPECT_EQ(first.listings, 30u);

    r = crawl("'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Costs second = costs();
    EXPECT_EQ(second.pages, 1u);
    EXPECT_EQ(second.listings, 30u);  // every pending repository, though the page showed it unchanged
    EXPECT_EQ(first.resolves + second.resolves, 30u);
    EXPECT_EQ(second.resolves, 30u - static_cast<unsigned>(done));
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM hub_repos WHERE status = 'ok'"), "30");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok'"), "30");
}

// A gated repository: without a token its file fails and the repository stays pending (listed
// again the next night, whatever the models API says); with one it is read, and then costs nothing.
TEST_F(HubDiscovery, GatedRepoIsPendingUntilItsFilesAreRead) {
    start();
    add_repo("org/gated-model", 3);
    add_repo("org/open-model", 2);
    test::CommandResult r = crawl("'hf://org/*'");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("gated or private (HTTP 401); set HF_TOKEN or --token-file"), std::string::npos) << r.err;
    Costs c = costs();
    EXPECT_EQ(c.pages, 1u);
    EXPECT_EQ(c.listings, 2u);
    EXPECT_EQ(c.refused, 1u);
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(repo || ' ' || status, ', ') FROM (SELECT * FROM hub_repos ORDER BY repo)"),
              "org/gated-model pending, org/open-model ok");

    ::setenv("HF_TOKEN", "secret-token", 1);
    r = crawl("'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    c = costs();
    EXPECT_EQ(c.pages, 1u);
    EXPECT_EQ(c.listings, 1u);  // the pending one only
    EXPECT_EQ(c.resolves, 1u);
    EXPECT_EQ(c.refused, 0u);
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM hub_repos WHERE status = 'ok'"), "2");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE status = 'ok' AND length(sha256) = 64"), "2");

    r = crawl("'hf://org/*'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    c = costs();
    EXPECT_EQ(c.pages, 1u);
    EXPECT_EQ(c.listings + c.resolves, 0u);

    // a file a migration marks to be read again: its repository is listed again, the file read
    test::run_command("sqlite3 " + db_.string() + " \"UPDATE files SET reread = 1 WHERE location LIKE '%/open-model/%'\"");
    r = crawl("'hf://org/*'");
    ::unsetenv("HF_TOKEN");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    c = costs();
    EXPECT_EQ(c.pages, 1u);
    EXPECT_EQ(c.listings, 1u);
    EXPECT_EQ(c.resolves, 1u);
    EXPECT_EQ(test::sql_value(db_, "SELECT files_changed || ' ' || repos_changed || ' ' || repos_unchanged FROM crawls WHERE crawl_id = 4"),
              "1 1 1");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE reread"), "0");
}

// hf://AUTHOR/*/GLOB reads the files the glob picks in each repository the author has.
TEST_F(HubDiscovery, AnAuthorsGlobPicksFilesInEachRepo) {
    start();
    for (const char* repo : {"org/a", "org/b"}) {
        add_repo(repo, 2, "m-Q4_0.gguf");
        add_repo(repo, 2, "m-Q8_0.gguf");
    }
    test::CommandResult r = crawl("'hf://org/*/*Q8_0.gguf'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(substr(location, length('" + hub_->endpoint() + "') + 1), ' ')"
                                   " FROM (SELECT location FROM files ORDER BY location)"),
              "/org/a/resolve/main/m-Q8_0.gguf /org/b/resolve/main/m-Q8_0.gguf");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM hub_repos WHERE scope = 'hf://org/*/*Q8_0.gguf' AND status = 'ok'"), "2");
}

// hf-search: passes the models API's own parameters; the pages come sorted by lastModified.
TEST_F(HubDiscovery, SearchFormMapsToTheModelsApiParameters) {
    start();
    add_repo("org/Llama-3.1-8B-GGUF", 2);
    add_repo("other/Llama-3.1-70B-GGUF", 3);
    add_repo("org/Mistral-7B-GGUF", 1);
    fs::create_directories(hub_->root() / "org/Llama-3.1-8B");
    std::ofstream(hub_->root() / "org/Llama-3.1-8B/notes.txt") << "no gguf here\n";  // not tagged gguf
    test::CommandResult r = crawl("'hf-search:?filter=gguf&search=Llama-3.1'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(name, ', ') FROM (SELECT name FROM models ORDER BY name)"),
              "org/Llama-3.1-8B-GGUF, other/Llama-3.1-70B-GGUF");
    std::string pages;  // the replica logs as it answers: a listing the page led to may come first
    for (const auto& e : hub_->log())
        if (e.target.starts_with("/api/models?")) pages += e.target + "\n";
    EXPECT_TRUE(pages.starts_with("/api/models?filter=gguf&search=Llama-3.1&sort=lastModified&direction=-1&limit=1000&"
                                  "expand=lastModified&expand=sha\n"))
        << pages;
    EXPECT_EQ(costs().pages, 1u);
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM hub_repos WHERE scope = 'hf-search:?filter=gguf&search=Llama-3.1'"), "2");

    r = crawl("'hf-search:?sort=downloads'");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("hf-search: sets sort itself"), std::string::npos) << r.err;
}

}  // namespace
