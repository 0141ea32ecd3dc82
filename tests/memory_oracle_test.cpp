// The memory engine against llama.cpp itself (bench/memory/oracle.mjs: node-llama-cpp's prebuilt CPU
// backend, installed by scripts/install-deps): generated files of several architectures, loaded for
// real, must give the weights, repack, KV, recurrent and output buffers to the MiB llama.cpp prints,
// and a compute buffer within 10 % or 32 MiB. Where Node.js >= 20 or the package is missing the suite
// skips, except under CI, where that is a failure.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "kit/arch_files.hpp"
#include "kit/gguf_writer.hpp"
#include "format/memory.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

const fs::path kOracleDir = fs::path(MODELCAT_SOURCE_DIR) / "bench" / "memory";

std::string oracle_output(const std::string& command) {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    std::string out;
    std::array<char, 4096> buf;
    while (pipe && fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
    return out;
}

// Why llama.cpp cannot be run here, or an empty string.
std::string oracle_missing() {
    const std::string major = oracle_output("node -p 'process.versions.node.split(\".\")[0]' 2>/dev/null");
    if (major.empty() || std::atoi(major.c_str()) < 20) return "Node.js >= 20 is not on PATH (scripts/install-deps installs it)";
    if (!fs::exists(kOracleDir / "node_modules" / "node-llama-cpp")) return "bench/memory has no node_modules (scripts/install-deps installs them)";
    return {};
}

// Bytes as llama.cpp prints them (%.2f of MiB: glibc rounds the exact value half to even), in hundredths.
int64_t bytes_mib100(uint64_t bytes) {
    constexpr uint64_t MiB = 1024 * 1024;
    const uint64_t q = bytes * 100 / MiB, r = bytes * 100 % MiB;
    return static_cast<int64_t>(2 * r > MiB || (2 * r == MiB && q % 2 == 1) ? q + 1 : q);
}

int64_t log_mib100(simdjson::dom::array a, std::string_view buffer_not = "") {
    int64_t total = 0;
    for (auto b : a)
        if (buffer_not.empty() || std::string_view(b["buffer"]) != buffer_not) total += int64_t(b["mib100"]);
    return total;
}

class MemoryOracle : public ::testing::Test {
protected:
    void SetUp() override {
        if (const std::string why = oracle_missing(); !why.empty()) {
            if (std::getenv("CI")) FAIL() << "llama.cpp cannot run: " << why;
            GTEST_SKIP() << "llama.cpp cannot run: " << why;
        }
    }
    test::TempDir dir;
};

struct OracleSetting {
    uint32_t ctx;
    format::CacheType cache;
    format::Flash flash;
    const char* json;
};

const OracleSetting kOracleSettings[] = {
    {4096, format::CacheType::f16, format::Flash::automatic, R"({"ctx":4096})"},
    {1000, format::CacheType::f16, format::Flash::off, R"({"ctx":1000,"flash":"off"})"},
    {32768, format::CacheType::q8_0, format::Flash::on, R"({"ctx":32768,"cache":"q8_0","flash":"on"})"},
};

}  // namespace

TEST_F(MemoryOracle, ModuleAgreesWithLlamaCppOnGeneratedArchitectures) {
    std::string settings = "[";
    for (const OracleSetting& s : kOracleSettings) settings += std::string(settings.size() > 1 ? "," : "") + s.json;
    settings += "]";
    for (const kit::ArchFile& f : kit::arch_files(kit::ArchScale::small)) {
        if (f.name != "llama-gqa-q4_k" && f.name != "gemma2-f16" && f.name != "deepseek2-mla-q4_k" && f.name != "mamba2-q8_0" &&
            f.name != "lfm2-hybrid-q4_0" && f.name != "gpt-oss-mxfp4" && f.name != "qwen3-iq4_nl")
            continue;
        SCOPED_TRACE(f.name);
        const fs::path path = dir.path() / (f.name + ".gguf");
        f.gguf.write(path);
        const std::string out = oracle_output("node '" + (kOracleDir / "oracle.mjs").string() + "' '" + path.string() + "' --settings '" + settings + "'");
        simdjson::dom::parser parser;
        simdjson::dom::element o;
        ASSERT_EQ(parser.parse(out).get(o), simdjson::SUCCESS) << "oracle printed: " << out.substr(0, 400);
        const auto read = format::read_memory_model(kit::parse_header(f.gguf));
        ASSERT_TRUE(std::holds_alternative<format::MemoryModel>(read));
        const auto& m = std::get<format::MemoryModel>(read);
        simdjson::dom::array contexts = o["contexts"];
        size_t i = 0;
        for (auto c : contexts) {
            const OracleSetting& s = kOracleSettings[i++];
            SCOPED_TRACE(s.json);
            ASSERT_TRUE(c["error"].is_null()) << std::string_view(c["error"]);
            const auto fig = std::get<format::MemoryFigures>(format::memory_figures(format::memory_terms(m), {.ctx = s.ctx, .cache = s.cache, .flash = s.flash}));
            EXPECT_EQ(bytes_mib100(fig.weights_bytes), log_mib100(o["model"]["log"]["model"], "CPU_REPACK"));
            EXPECT_EQ(bytes_mib100(fig.repack_bytes), log_mib100(o["model"]["log"]["model"]) - log_mib100(o["model"]["log"]["model"], "CPU_REPACK"));
            simdjson::dom::element log = c["log"];
            simdjson::dom::array buffers = log["kv_buffers"], sizes = log["kv"];  // one each per cache: full, then sliding
            ASSERT_EQ(buffers.size(), fig.caches.size());
            ASSERT_EQ(sizes.size(), fig.caches.size());
            for (size_t k = 0; k < fig.caches.size(); ++k) {
                EXPECT_EQ(bytes_mib100(fig.caches[k].k_bytes + fig.caches[k].v_bytes), int64_t(buffers.at(k)["mib100"]));
                EXPECT_EQ(fig.caches[k].cells, uint64_t(sizes.at(k)["cells"]));
            }
            EXPECT_EQ(bytes_mib100(fig.recurrent_bytes), log_mib100(log["rs_buffers"]));
            EXPECT_EQ(bytes_mib100(fig.output_bytes), log_mib100(log["output"]));
            const double compute = static_cast<double>(log_mib100(log["compute"])) / 100.0, mine = static_cast<double>(fig.compute_bytes) / (1024.0 * 1024.0);
            EXPECT_LE(std::abs(mine - compute), std::max(0.10 * compute, 32.0)) << "compute: llama.cpp " << compute << " MiB, module " << mine;
        }
        EXPECT_EQ(i, std::size(kOracleSettings));
    }
}
