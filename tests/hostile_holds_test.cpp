// Holds against a stranger's file, through the binary (issue 35): a header's
// reads grow geometrically and a stop signal ends a crawl between them; counts,
// nested JSON and sizes taken from a file are capped before anything is
// allocated for them; a product of sizes that wraps is an error; and a bad
// file costs only itself. Speed is not asserted here: read counts are, and a
// hang guard (the bench times the reads).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <regex>
#include <thread>

#include "kit/arch_files.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/llama_conversion.hpp"
#include "kit/safetensors_writer.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufType;
using kit::GgufValue;
namespace fs = std::filesystem;

namespace {

const std::string kHangGuard = "timeout 120 ";
constexpr int kSomeFailed = 1;

void put_u32(std::vector<uint8_t>& b, uint32_t v) { b.insert(b.end(), reinterpret_cast<uint8_t*>(&v), reinterpret_cast<uint8_t*>(&v) + 4); }
void put_u64(std::vector<uint8_t>& b, uint64_t v) { b.insert(b.end(), reinterpret_cast<uint8_t*>(&v), reinterpret_cast<uint8_t*>(&v) + 8); }

// The payload of ARRAY(ARRAY, outer){ARRAY(U8, inner) x outer}: the estimate cannot see inside the nested arrays.
std::vector<uint8_t> nested_u8_arrays(uint64_t outer, uint64_t inner) {
    std::vector<uint8_t> b;
    put_u32(b, static_cast<uint32_t>(GgufType::array));
    put_u64(b, outer);
    for (uint64_t i = 0; i < outer; ++i) {
        put_u32(b, static_cast<uint32_t>(GgufType::u8));
        put_u64(b, inner);
        b.resize(b.size() + inner, 7);
    }
    return b;
}

void write_nested_gguf(const fs::path& path, uint64_t outer, uint64_t inner) {
    kit::GgufWriter w;
    w.add_raw_kv("nested", static_cast<uint32_t>(GgufType::array), nested_u8_arrays(outer, inner));
    w.add_tensor("token_embd.weight", {8}, kit::kF32);
    w.write(path);
}

uint64_t reads_shown(const std::string& show_output) {
    std::smatch m;
    if (!std::regex_search(show_output, m, std::regex("read [0-9]+ bytes in ([0-9]+) reads"))) return 0;
    return std::stoull(m[1]);
}

std::string crawl(const fs::path& db, const fs::path& input, const std::string& prefix = "") {
    test::CommandResult r = test::run_modelcat("crawl -q --db " + db.string() + " " + input.string(), prefix + kHangGuard);
    return std::to_string(r.exit_code) + " " + r.err;
}

std::string error_of(const fs::path& db, const std::string& file_name) {
    return test::sql_value(db, "SELECT message FROM errors WHERE location LIKE '%/" + file_name + "'");
}

// ---- time: a header's reads, and a stop signal while they go on ----

TEST(HostileHolds, ANestedArrayIsReadInGeometricallyGrowingReads) {
    test::TempDir dir;
    write_nested_gguf(dir / "nested.gguf", 1, 1 << 18);  // 256 KiB the estimate cannot see: 1,600 reads of ~168 bytes before
    test::CommandResult r = test::run_modelcat("show " + (dir / "nested.gguf").string(), kHangGuard);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const uint64_t reads = reads_shown(r.out);
    EXPECT_GE(reads, 1u) << r.out;
    EXPECT_LE(reads, 8u) << r.out;  // 64 KiB, then doubling to 256 KiB, with room to spare
}

TEST(HostileHolds, ManyMidSizedKeysAreReadInGeometricallyGrowingReads) {
    test::TempDir dir;
    kit::GgufWriter w;
    for (int i = 0; i < 200; ++i) w.add_raw_kv("k" + std::to_string(i), static_cast<uint32_t>(GgufType::array), nested_u8_arrays(1, 32 << 10));
    w.add_tensor("token_embd.weight", {8}, kit::kF32);
    w.write(dir / "keys.gguf");
    test::CommandResult r = test::run_modelcat("show " + (dir / "keys.gguf").string(), kHangGuard);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const uint64_t reads = reads_shown(r.out);
    EXPECT_GE(reads, 1u) << r.out;
    EXPECT_LE(reads, 12u) << r.out;  // 6.4 MB from 64 KiB: 7 doublings
}

// A stop between a header's reads leaves the model as the last crawl saw it: no error, no failed event.
TEST(HostileHolds, ASigtermEndsACrawlReadingAHugeHeaderPromptlyRecordingNoFailure) {
    test::TempDir dir;
    write_nested_gguf(dir / "nested.gguf", 1, 64'000'000);  // read in ~1 s now; 8,273 reads of a 1 MB one took 70 s before
    const pid_t pid = test::spawn_modelcat({"crawl", "-q", "--db", (dir / "c.db").string(), dir.path().string()}, dir / "err");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(pid, SIGTERM);
    int status = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);  // a hang guard, not a speed
    while (::waitpid(pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (::waitpid(pid, &status, WNOHANG) == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        FAIL() << "the crawl was still running 30 s after SIGTERM";
    }
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_TRUE(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 128 + SIGTERM) << WEXITSTATUS(status);  // done, or stopped
    EXPECT_EQ(test::sql_value(dir / "c.db", "SELECT count(*) FROM errors"), "0");
    EXPECT_EQ(test::sql_value(dir / "c.db", "SELECT count(*) FROM model_events WHERE event = 'failed'"), "0");
}

// ---- memory: one bad file is an error on that file, never the crawl's end ----

// Under 1 GiB of address space unless AddressSanitizer reserves terabytes of it.
std::string memory_cap() { return test::sanitized() ? "" : "ulimit -v 1048576; "; }

TEST(HostileHolds, MillionsOfSafetensorsMetadataKeysAreAnErrorOnThatFile) {
    test::TempDir dir;
    std::string json = R"({"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"__metadata__":{)";
    for (int i = 0; i < 2'500'000; ++i) json += (i ? ",\"" : "\"") + std::to_string(i) + "\":\"v\"";
    json += "}}";
    kit::write_raw_safetensors(dir / "keys.safetensors", json, 1);
    kit::GgufWriter good;
    good.add_tensor("token_embd.weight", {8}, kit::kF32);
    good.write(dir / "good.gguf");
    EXPECT_EQ(crawl(dir / "c.db", dir.path(), memory_cap()).substr(0, 2), std::to_string(kSomeFailed) + " ");
    EXPECT_NE(error_of(dir / "c.db", "keys.safetensors").find("__metadata__ has more than the cap of"), std::string::npos)
        << error_of(dir / "c.db", "keys.safetensors");
    EXPECT_EQ(test::sql_value(dir / "c.db", "SELECT count(*) FROM files WHERE location LIKE '%/good.gguf'"), "1");
}

TEST(HostileHolds, NestedArraysUnderAShortArrayKeepNoJsonPastTheBudget) {
    test::TempDir dir;
    write_nested_gguf(dir / "nested.gguf", 4, 1 << 20);  // 4 MiB of u8: 16 MiB of JSON before
    ASSERT_EQ(crawl(dir / "c.db", dir / "nested.gguf"), "0 ");
    const fs::path db = dir / "c.db";
    EXPECT_EQ(test::sql_value(db, "SELECT array_length || ' ' || array_bytes FROM metadata WHERE key = 'nested'"),
              "4 " + std::to_string(4 * (12 + (1 << 20))));
    EXPECT_EQ(test::sql_value(db, "SELECT value IS NULL FROM metadata WHERE key = 'nested'"), "1");  // hash only, as a long array
    EXPECT_EQ(test::sql_value(db, "SELECT array_hash IS NOT NULL FROM metadata WHERE key = 'nested'"), "1");
}

TEST(HostileHolds, AnAuditOfAConfigVocabSizeOfABillionIsRefused) {
    test::TempDir dir;
    kit::write_llama_checkpoint(dir / "ckpt", {});
    kit::write_llama_conversion(dir / "conv.gguf", {}, {});
    std::ifstream in(dir / "ckpt/config.json");
    std::string config((std::istreambuf_iterator<char>(in)), {});
    config = std::regex_replace(config, std::regex("\"vocab_size\": [0-9]+"), "\"vocab_size\": 1000000000");
    std::ofstream(dir / "ckpt/config.json") << config;
    test::CommandResult r = test::run_modelcat("audit --db " + (dir / "a.db").string() + " " + (dir / "conv.gguf").string() + " " +
                                               (dir / "ckpt").string(), memory_cap() + kHangGuard);
    ASSERT_LT(r.exit_code, 128) << r.err;  // no signal: SIGABRT under the cap before
    EXPECT_EQ(test::sql_value(dir / "a.db", "SELECT verdict || ': ' || note FROM audit_metadata WHERE key = 'tokenizer.ggml.tokens'"),
              "not_checked: config.json:vocab_size: vocab_size 1000000000 exceeds the cap of 4194304 tokens");
}

// ---- numbers: a product that wraps, a value that does not fit its column ----

TEST(HostileHolds, ASafetensorsShapeWhoseBytesWrapIsAnError) {
    test::TempDir dir;
    kit::write_raw_safetensors(dir / "wrap.safetensors", R"({"x":{"dtype":"F32","shape":[576460752303423489],"data_offsets":[0,4]}})", 4);
    EXPECT_EQ(crawl(dir / "c.db", dir / "wrap.safetensors").substr(0, 2), std::to_string(kSomeFailed) + " ");
    EXPECT_NE(error_of(dir / "c.db", "wrap.safetensors").find("tensor 'x': 576460752303423489 F32 elements take more than 2^64 bits"),
              std::string::npos) << error_of(dir / "c.db", "wrap.safetensors");
}

TEST(HostileHolds, ADuplicateFieldInASafetensorsEntryIsAnError) {
    test::TempDir dir;
    kit::write_raw_safetensors(dir / "dup.safetensors", R"({"x":{"dtype":"U8","dtype":"F32","shape":[4],"data_offsets":[0,4]}})", 4);
    EXPECT_EQ(crawl(dir / "c.db", dir / "dup.safetensors").substr(0, 2), std::to_string(kSomeFailed) + " ");
    EXPECT_NE(error_of(dir / "c.db", "dup.safetensors").find("tensor 'x': duplicate \"dtype\""), std::string::npos)
        << error_of(dir / "c.db", "dup.safetensors");
}

TEST(HostileHolds, OneTensorInTwoSplitShardsIsAnError) {
    test::TempDir dir;
    for (int no = 0; no < 2; ++no) {
        kit::GgufWriter w;
        w.add_kv("split.no", GgufValue::u16(static_cast<uint16_t>(no)));
        w.add_kv("split.count", GgufValue::u16(2));
        w.add_kv("split.tensors.count", GgufValue::i32(2));
        w.add_tensor("token_embd.weight", {8}, kit::kF32);
        w.write(dir / ("m-0000" + std::to_string(no + 1) + "-of-00002.gguf"));
    }
    EXPECT_EQ(crawl(dir / "c.db", dir.path()).substr(0, 2), std::to_string(kSomeFailed) + " ");
    EXPECT_NE(error_of(dir / "c.db", "m-00002-of-00002.gguf").find("tensor 'token_embd.weight' is also in shard 1"), std::string::npos)
        << error_of(dir / "c.db", "m-00002-of-00002.gguf");
}

TEST(HostileHolds, AnIndexTotalSizePast2To64IsAnError) {
    test::TempDir dir;
    kit::SafetensorsWriter w;
    w.add("x", "U8", {4});
    w.write(dir / "model-00001-of-00001.safetensors");
    std::ofstream(dir / "model.safetensors.index.json")
        << R"({"metadata":{"total_size":1e30},"weight_map":{"x":"model-00001-of-00001.safetensors"}})";
    EXPECT_EQ(crawl(dir / "c.db", dir.path()).substr(0, 2), std::to_string(kSomeFailed) + " ");
    EXPECT_NE(error_of(dir / "c.db", "model.safetensors.index.json").find("total_size 1e+30 is past 2^64"), std::string::npos)
        << error_of(dir / "c.db", "model.safetensors.index.json");
}

TEST(HostileHolds, AContextLengthPastItsColumnIsKeptExactlyAndModelledAsNone) {
    test::TempDir dir;
    for (kit::ArchFile& f : kit::arch_files(kit::ArchScale::small)) {
        if (f.arch != "llama") continue;
        f.gguf.replace_kv("llama.context_length", GgufValue::u64(UINT64_MAX));
        f.gguf.write(dir / "ctx.gguf");
        break;
    }
    ASSERT_EQ(crawl(dir / "c.db", dir / "ctx.gguf"), "0 ");
    const fs::path db = dir / "c.db";
    EXPECT_EQ(test::sql_value(db, "SELECT value FROM metadata WHERE key = 'llama.context_length'"), "18446744073709551615");
    EXPECT_EQ(test::sql_value(db, "SELECT coalesce(ctx_train, 'NULL') || ' ' || basis || ': ' || coalesce(reason, '') FROM memory_terms"),
              "NULL not_modelled: llama.context_length 18446744073709551615 is more than llama.cpp's uint32 n_ctx_train");
}

}  // namespace
