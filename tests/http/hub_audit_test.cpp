// The audit reaches the Hub as the crawl does, against the replica (hub_replica.py):
// a gated repository's pair is audited with the token, which goes to the Hub host
// only; each file is resolved once through its 302 and then read from storage
// without the token; the resolver budget the replica announces is waited for,
// never met with a 429. Requests are counted from the replica's own log.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "hub_replica.hpp"
#include "kit/llama_conversion.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

class HubAudit : public ::testing::Test {
protected:
    void SetUp() override {
        // three resolver calls per 2 s window: the pair's five files need two windows
        hub_ = std::make_unique<test::HubReplica>(tmp_.path(), test::ReplicaOptions{.api_quota = 10, .resolver_quota = 3, .window_s = 2});
        const fs::path repo = hub_->root() / "owner" / "gated-llama";
        kit::write_llama_checkpoint(repo, {});
        kit::write_llama_conversion(repo / "BF16.gguf", {}, {});
    }
    test::CommandResult audit(const std::string& env) {
        return test::run_modelcat("audit --db " + (tmp_ / "c.db").string() + " hf://owner/gated-llama/BF16.gguf hf://owner/gated-llama",
                                  "HF_ENDPOINT=" + hub_->endpoint() + " " + env + " ");
    }
    // The replica logs a request as it answers: give the last answer a moment to be written.
    std::vector<test::ReplicaRequest> log() {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        return hub_->log();
    }
    test::TempDir tmp_;
    std::unique_ptr<test::HubReplica> hub_;
};

}  // namespace

TEST_F(HubAudit, GatedPairIsAuditedWithTheTokenOnTheCrawlsAccessPath) {
    test::CommandResult anonymous = audit("");
    EXPECT_EQ(anonymous.exit_code, 2) << anonymous.out << anonymous.err;
    EXPECT_NE(anonymous.err.find("gated or private (HTTP 401); set HF_TOKEN or --token-file"), std::string::npos) << anonymous.err;
    const size_t refused = log().size();

    test::CommandResult r = audit("HF_TOKEN=secret-token");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Exact match (23 tensors)"), std::string::npos) << r.out;
    auto entries = log();
    entries.erase(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(refused));
    ASSERT_FALSE(entries.empty());
    std::multiset<std::string> resolved;
    unsigned reads = 0;
    for (const auto& e : entries) {
        EXPECT_NE(e.status, 429) << e.target;
        if (e.host == "hub") {
            EXPECT_EQ(e.authorization, "Bearer secret-token") << e.target;
            // the metadata audit's files the checkpoint lacks are one 404 each
            bool absent = e.target.ends_with("/tokenizer.model") || e.target.ends_with("/chat_template.jinja");
            EXPECT_EQ(e.status, absent ? 404 : 302) << e.target;
            resolved.insert(e.target);
        } else {
            EXPECT_EQ(e.authorization, "-") << e.target;  // the token stays on the Hub host
            EXPECT_EQ(e.status, 206) << e.target;
            ++reads;
        }
    }
    // each file resolved once (the metadata audit's tokenizer files too): later reads, the comparing
    // threads' too, go straight to storage
    const std::string repo = "/owner/gated-llama/resolve/main/";
    std::multiset<std::string> expected;
    for (const char* f : {"BF16.gguf", "config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                          "model.safetensors.index.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
                          "tokenizer.model", "chat_template.jinja"})
        expected.insert(repo + f);
    EXPECT_EQ(resolved, expected);
    EXPECT_GT(reads, 5u);
    // ten resolves at three per window: the audit waited for resets rather than meet a 429
    EXPECT_GE(entries.back().time - entries.front().time, 1.0);
}
