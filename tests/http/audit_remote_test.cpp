// The conversion audit over HTTP: the binary against a real nginx on
// 127.0.0.1, requests and bytes counted from nginx's access log.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "kit/llama_conversion.hpp"
#include "nginx.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

class RemoteAudit : public ::testing::Test {
protected:
    void SetUp() override {
        kit::write_llama_checkpoint(nginx_.root() / "files" / "ckpt", {});
        kit::write_llama_conversion(nginx_.root() / "files" / "Q4_K.gguf", {}, {12});
        kit::write_llama_conversion(nginx_.root() / "files" / "swapped.gguf", {}, {30, kit::ConversionDefect::swapped_layers});
    }
    test::CommandResult audit(const std::string& gguf, const std::string& extra = "") {
        return test::run_modelcat("audit --db " + (tmp_ / "c.db").string() + " " + extra + " " + nginx_.url("/files/" + gguf) +
                                  " " + nginx_.url("/files/ckpt/model.safetensors.index.json"));
    }
    uint64_t served_bytes(const std::vector<test::AccessLogEntry>& log) {  // 404 pages are not bytes read
        uint64_t n = 0;
        for (const auto& e : log) n += e.status == 404 ? 0 : e.body_bytes;
        return n;
    }
    // Every request a range read, but the metadata audit's look for the files the kit's checkpoint lacks.
    void expect_ranges_or_absent(const std::vector<test::AccessLogEntry>& log) {
        for (const auto& e : log)
            if (e.status != 206) {
                EXPECT_TRUE(e.status == 404 && (e.target.ends_with("/ckpt/tokenizer.model") || e.target.ends_with("/ckpt/chat_template.jinja")))
                    << e.status << " " << e.target;
            }
    }
    uint64_t pair_bytes() {  // the GGUF and the checkpoint's files
        uint64_t n = 0;
        for (const auto& f : fs::recursive_directory_iterator(nginx_.root() / "files" / "ckpt")) n += f.file_size();
        return n + fs::file_size(nginx_.root() / "files" / "Q4_K.gguf");
    }
    // "read B bytes in R requests" from the command's last line.
    std::pair<uint64_t, uint64_t> reported(const std::string& out) {
        unsigned long long bytes = 0, requests = 0;
        size_t at = out.rfind(": read ");
        if (at == std::string::npos || std::sscanf(out.c_str() + at, ": read %llu bytes in %llu requests", &bytes, &requests) != 2)
            return {0, 0};
        return {bytes, requests};
    }
    test::TempDir tmp_;
    test::Nginx nginx_;
};

}  // namespace

TEST_F(RemoteAudit, FullAuditReadsEachByteOnceInLargeRanges) {
    auto r = audit("Q4_K.gguf");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("0 exact, 23 within tolerance"), std::string::npos) << r.out;
    auto [bytes, requests] = reported(r.out);
    auto log = nginx_.wait_for_log(requests);
    EXPECT_EQ(log.size(), requests);
    EXPECT_EQ(served_bytes(log), bytes);
    EXPECT_LE(bytes, pair_bytes() * 101 / 100);  // headers read once, tensor data once
    expect_ranges_or_absent(log);
    // at most one request per header, JSON file (index, config and the metadata audit's five) and tensor side
    // (this kit's tensors fit in one range each)
    EXPECT_LE(requests, 3u + 2 + 5 + 2 * 30 + 1);
    // the metadata audit read the tokenizer files over HTTP too
    SQLite::Database db((tmp_ / "c.db").string());
    EXPECT_EQ(db.execAndGet("SELECT group_concat(verdict) FROM audit_metadata WHERE key IN ('tokenizer.ggml.tokens', 'tokenizer.chat_template')")
                  .getString(),
              "equal,equal");
    EXPECT_EQ(db.execAndGet("SELECT count(*) FROM audit_metadata WHERE effect <> 'ok' OR verdict = 'not_checked'").getInt(), 0);
}

TEST_F(RemoteAudit, SampleModeReadsAFractionAndStillCatchesSwappedLayers) {
    auto r = audit("Q4_K.gguf", "--sample-rows 4");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto [bytes, requests] = reported(r.out);
    auto log = nginx_.wait_for_log(requests);
    EXPECT_EQ(log.size(), requests);
    EXPECT_EQ(served_bytes(log), bytes);
    expect_ranges_or_absent(log);
    EXPECT_LT(bytes * 5, pair_bytes());
    auto bad = audit("swapped.gguf", "--sample-rows 4");
    EXPECT_EQ(bad.exit_code, 1) << bad.out;
    EXPECT_NE(bad.out.find("FAIL blk.0.ffn_up.weight"), std::string::npos) << bad.out;
}

TEST_F(RemoteAudit, HubLocationsResolveUnderTheEndpoint) {
    fs::path repo = nginx_.root() / "files" / "owner" / "repo" / "resolve" / "v1";
    kit::write_llama_checkpoint(repo, {});
    kit::write_llama_conversion(repo / "BF16.gguf", {}, {});
    auto r = test::run_modelcat("audit --db " + (tmp_ / "c.db").string() + " hf://owner/repo@v1/BF16.gguf hf://owner/repo@v1",
                                "HF_ENDPOINT=" + nginx_.url("/files") + " ");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Exact match (23 tensors)"), std::string::npos) << r.out;
    auto log = nginx_.wait_for_log(reported(r.out).second);
    ASSERT_FALSE(log.empty());
    EXPECT_EQ(log.front().target, "/files/owner/repo/resolve/v1/BF16.gguf");
    SQLite::Database db((tmp_ / "c.db").string());
    EXPECT_EQ(db.execAndGet("SELECT gguf_location || ' ' || source_location FROM audits").getString(),
              "hf://owner/repo@v1/BF16.gguf hf://owner/repo@v1");
}

TEST_F(RemoteAudit, MissingRemoteFileIsAnIoError) {
    auto r = audit("absent.gguf");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("absent.gguf"), std::string::npos) << r.err;
}
