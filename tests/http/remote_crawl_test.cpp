// Remote crawling through the real binary against a real nginx: requests and
// bytes are counted from nginx's access log, not from modelcat's counters.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "kit/llama31.hpp"
#include "kit/ranked_vocab.hpp"
#include "nginx.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {


class RemoteCrawl : public ::testing::Test {
protected:
    test::CommandResult crawl(const std::string& args) {
        return test::run_modelcat("crawl --db " + db_.string() + " --hf-endpoint " + nginx_.url("") + " " + args);
    }
    // Requests and body bytes per request target in the access log, from entry `from` on.
    std::map<std::string, std::pair<uint64_t, uint64_t>> per_target(size_t from = 0) {
        std::map<std::string, std::pair<uint64_t, uint64_t>> m;
        auto log = nginx_.access_log();
        for (size_t i = from; i < log.size(); ++i) {
            ++m[log[i].target].first;
            m[log[i].target].second += log[i].body_bytes;
        }
        return m;
    }
    test::Nginx nginx_;
    test::TempDir tmp_;
    fs::path db_ = tmp_ / "catalog.db";
};

TEST_F(RemoteCrawl, LlamaThreeClassHeadersInThreeRequestsAndFewBytes) {
    std::string urls;
    for (const char* q : {"Q4_K_M", "Q8_0"}) {
        kit::llama31_quant(q).write(nginx_.root() / "files" / kit::llama31_file_name(q));
        urls += " " + nginx_.url("/files/" + kit::llama31_file_name(q));
    }
    test::CommandResult r = crawl("--quiet" + urls);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nginx_.wait_for_log(6);
    for (const auto& [target, rb] : per_target()) {
        SCOPED_TRACE(target);
        EXPECT_LE(rb.first, 3u);                          // requests for a 7.8 MB header: the third sized by the merges' count
        EXPECT_GE(rb.second, kit::kLlama31DataStart);               // the whole header was read...
        EXPECT_LE(double(rb.second), 1.05 * kit::kLlama31DataStart);  // ...and little more
    }
    EXPECT_EQ(test::sql_value(db_, "SELECT census FROM quant_summary WHERE name LIKE '%Q4_K_M'"), "12:193 14:33 0:66");
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(requests) FROM files"), "3,3");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE http_status = 206 AND etag <> '' AND size > 4e9"), "2");
}

// A 248K-token vocabulary and a header over 16 MiB (524K tokens, 1M merges), whose entry
// lengths grow with rank as published vocabularies' do: sized from what the reads showed.
TEST_F(RemoteCrawl, LargeVocabulariesInThreeRequestsAndFewBytes) {
    std::map<std::string, uint64_t> header;
    std::string urls;
    for (const auto& shape : kit::vocab_shapes()) {
        if (shape.name != "bpe-248k" && shape.name != "bpe-512k") continue;
        kit::GgufWriter w = kit::ranked_vocab_model(shape);
        w.write(nginx_.root() / "files" / (shape.name + ".gguf"));
        header["/files/" + shape.name + ".gguf"] = w.data_start();
        urls += " " + nginx_.url("/files/" + shape.name + ".gguf");
    }
    ASSERT_EQ(header.size(), 2u);
    test::CommandResult r = crawl("--quiet" + urls);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nginx_.wait_for_log(6);
    auto m = per_target();
    for (const auto& [target, bytes] : header) {
        SCOPED_TRACE(target);
        EXPECT_LE(m[target].first, 3u);
        EXPECT_GE(m[target].second, bytes);
        EXPECT_LE(double(m[target].second), 1.05 * double(bytes));
    }
    EXPECT_GT(header["/files/bpe-512k.gguf"], 16u << 20);
    EXPECT_EQ(test::sql_value(db_, "SELECT sum(requests) FROM files"), std::to_string(m["/files/bpe-248k.gguf"].first + m["/files/bpe-512k.gguf"].first));
}

TEST_F(RemoteCrawl, SmallHeadersInOneRequestAndCheckpointsAsOneModel) {
    nginx_.write_file("files/tiny.gguf", std::vector<uint8_t>{});
    fs::copy_file(test::fixtures_dir() / "llama-2-tiny-random.gguf", nginx_.root() / "files/tiny.gguf",
                  fs::copy_options::overwrite_existing);
    kit::write_llama31_safetensors_checkpoint(nginx_.root() / "files/ckpt");
    test::CommandResult r =
        crawl("--quiet " + nginx_.url("/files/tiny.gguf") + " " + nginx_.url("/files/ckpt/model.safetensors.index.json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nginx_.wait_for_log(7);
    auto m = per_target();
    EXPECT_EQ(m["/files/tiny.gguf"].first, 1u);  // a 724,416-byte header: one request
    EXPECT_EQ(m["/files/ckpt/model.safetensors.index.json"].first, 1u);
    EXPECT_EQ(m["/files/ckpt/config.json"].first, 1u);
    for (int i = 1; i <= 4; ++i) {
        std::string shard = "/files/ckpt/model-0000" + std::to_string(i) + "-of-00004.safetensors";
        EXPECT_EQ(m[shard].first, 1u) << shard;  // ~10 KB headers: covered by the first read
        EXPECT_LE(m[shard].second, 128u << 10) << shard;
    }
    EXPECT_EQ(test::sql_value(db_, "SELECT name || ' ' || tensor_count || ' ' || architecture FROM models WHERE format = 'safetensors'"),
              "ckpt 291 llama");
    EXPECT_EQ(test::sql_value(db_, "SELECT census FROM quant_summary WHERE format = 'safetensors'"), "BF16:291");
}

TEST_F(RemoteCrawl, HubRepoIsListedPinnedAndReCrawledForFree) {
    std::string base = "owner/repo/resolve/main/";
    fs::create_directories(nginx_.root() / base / "sub");
    kit::llama31_quant("Q4_K_S").write(nginx_.root() / (base + "m-Q4_K_S.gguf"));
    kit::llama31_quant("Q6_K").write(nginx_.root() / (base + "sub/m-Q6_K.gguf"));
    nginx_.write_file(base + "README.md", "not a model");
    auto entry = [](const std::string& path, uint64_t size, const std::string& sha) {
        return R"({"type":"file","path":")" + path + R"(","size":)" + std::to_string(size) + R"(,"oid":"x","lfs":{"oid":")" +
               sha + R"(","size":)" + std::to_string(size) + "}}";
    };
    std::string sha1(64, 'a'), sha2(64, 'b');
    nginx_.write_file("tree/page.json", "[" + entry("m-Q4_K_S.gguf", 4'692'673'952, sha1) +
                                            R"(,{"type":"directory","path":"sub","oid":"y","size":0},{"type":"file","path":"README.md","size":11,"oid":"z"}])");
    nginx_.write_file("tree/page2.json", "[" + entry("sub/m-Q6_K.gguf", 6'596'011'424, sha2) + "]");
    test::CommandResult r = crawl("--quiet hf://owner/repo");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    size_t first = nginx_.wait_for_log(6).size();
    auto m = per_target();
    EXPECT_EQ(m["/api/models/owner/repo/tree/main?recursive=true&expand=false&limit=1000"].first, 1u);
    EXPECT_EQ(m["/api/models/owner/repo/tree/main?cursor=2"].first, 1u);  // followed the Link header
    EXPECT_EQ(m.count("/owner/repo/resolve/main/README.md"), 0u);
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM models WHERE name = 'owner/repo'"), "2");
    EXPECT_EQ(test::sql_value(db_, "SELECT sha256 FROM files WHERE location LIKE '%m-Q6_K.gguf'"), sha2);
    EXPECT_EQ(test::sql_value(db_, "SELECT revision FROM files WHERE location LIKE '%m-Q6_K.gguf'"), "main");

    // same listing, same sha256: no range request at all
    r = crawl("--quiet hf://owner/repo");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto after = nginx_.wait_for_log(first + 2);
    for (size_t i = first; i < after.size(); ++i) EXPECT_TRUE(after[i].target.starts_with("/api/models/")) << after[i].target;
    // what it did spend is counted: the two listing pages, api calls; their bytes are the listings'
    EXPECT_EQ(test::sql_value(db_, "SELECT files_unchanged || ' ' || requests || ' ' || api_calls || ' ' || resolver_calls || ' ' || storage_reads"
                  " FROM crawls WHERE crawl_id = 2"),
              "2 2 2 0 0");
    uint64_t listing_bytes = 0;
    for (size_t i = first; i < after.size(); ++i) listing_bytes += after[i].body_bytes;
    EXPECT_EQ(test::sql_value(db_, "SELECT bytes_read FROM crawls WHERE crawl_id = 2"), std::to_string(listing_bytes));

    // the Q6_K file disappears from the listing: gone
    nginx_.write_file("tree/page2.json", "[]");
    ASSERT_EQ(crawl("--quiet hf://owner/repo").exit_code, 0);
    EXPECT_EQ(test::sql_value(db_, "SELECT status FROM files WHERE location LIKE '%m-Q6_K.gguf'"), "gone");
}

TEST_F(RemoteCrawl, UnchangedUrlCostsOneConditionalRequestAndNoHeaderBytes) {
    kit::llama31_quant("Q2_K").write(nginx_.root() / "files/q2k.gguf");
    ASSERT_EQ(crawl("--quiet " + nginx_.url("/files/q2k.gguf")).exit_code, 0);
    size_t first = nginx_.wait_for_log(2).size();
    ASSERT_EQ(crawl("--quiet " + nginx_.url("/files/q2k.gguf")).exit_code, 0);
    auto log = nginx_.wait_for_log(first + 1);
    ASSERT_EQ(log.size(), first + 1);
    EXPECT_EQ(log.back().status, 304);
    EXPECT_EQ(log.back().body_bytes, 0u);
    EXPECT_NE(log.back().if_none_match, "-");
    EXPECT_EQ(test::sql_value(db_, "SELECT files_unchanged || ' ' || requests FROM crawls WHERE crawl_id = 2"), "1 1");
    // rewritten with another policy: re-read
    kit::llama31_quant("Q3_K_M").write(nginx_.root() / "files/q2k.gguf");
    ASSERT_EQ(crawl("--quiet " + nginx_.url("/files/q2k.gguf")).exit_code, 0);
    EXPECT_EQ(test::sql_value(db_, "SELECT census FROM quant_summary"), "11:129 12:92 14:1 13:4 0:66");
}

TEST_F(RemoteCrawl, MisbehavingServersFailAloneWithClearErrors) {
    kit::llama31_quant("Q8_0").write(nginx_.root() / "files/big.gguf");
    kit::llama31_quant("Q4_K_M").write(nginx_.root() / "files/ok.gguf");
    test::CommandResult r = crawl(nginx_.url("/noranges/big.gguf") + " " + nginx_.url("/gated/x.gguf") + " " +
                                  nginx_.url("/files/missing.gguf") + " " + nginx_.url("/files/ok.gguf"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("server ignores Range requests"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("gated or private (HTTP 401); set HF_TOKEN or --token-file: " + nginx_.url("/gated/x.gguf")),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("not found (HTTP 404): " + nginx_.url("/files/missing.gguf")), std::string::npos) << r.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM models"), "1");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM errors"), "3");
    nginx_.wait_for_log(5);
    uint64_t noranges = per_target()["/noranges/big.gguf"].second;
    EXPECT_LE(noranges, (1u << 20) + (64u << 10));  // an 8.5 GB file that ignores Range costs about 1 MiB
}

TEST_F(RemoteCrawl, SizeThatDisagreesWithTheListingIsReadAgainOnceThenFails) {
    std::string base = "owner/repo/resolve/main/";
    fs::create_directories(nginx_.root() / base);
    kit::llama31_quant("Q4_K_S").write(nginx_.root() / (base + "a.gguf"));
    nginx_.write_file("tree/page.json",
                      R"([{"type":"file","path":"a.gguf","size":12345,"oid":"x","lfs":{"oid":")" + std::string(64, 'c') + R"(","size":12345}}])");
    nginx_.write_file("tree/page2.json", "[]");
    test::CommandResult r = crawl("--quiet hf://owner/repo");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("Content-Range says 4692673952 bytes but the Hub listing says 12345"), std::string::npos) << r.err;
    nginx_.wait_for_log(4);
    EXPECT_EQ(per_target()["/owner/repo/resolve/main/a.gguf"].first, 2u);  // the first read, and one fresh start
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM models"), "0");
}

TEST_F(RemoteCrawl, TokenGoesToTheHubOnly) {
    kit::llama31_quant("Q4_K_S").write(nginx_.root() / "files/a.gguf");
    nginx_.write_file("tree/page.json", "[]");
    nginx_.write_file("tree/page2.json", "[]");
    ::setenv("HF_TOKEN", "secret-token", 1);
    test::CommandResult r = crawl("--quiet hf://owner/repo " + nginx_.url2("/files/a.gguf"));
    ::unsetenv("HF_TOKEN");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& e : nginx_.wait_for_log(3)) {
        SCOPED_TRACE(e.target);
        if (e.port == nginx_.port2()) EXPECT_EQ(e.authorization, "-");
        else EXPECT_EQ(e.authorization, "Bearer secret-token");
    }
    EXPECT_EQ(r.err.find("secret-token"), std::string::npos);
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE location LIKE '%secret%' OR final_url LIKE '%secret%'"), "0");
}

}  // namespace
