// The memory engine and the memory report against llama.cpp itself (bench/memory/oracle.mjs: node-llama-cpp's prebuilt CPU
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
    const char* report_params;  // the same setting for `modelcat query memory`
};

// The six buffers, as the engine or the memory report gives them.
struct Buffers {
    uint64_t weights = 0, repack = 0, kv = 0, recurrent = 0, output = 0, compute = 0;
};

// The memory report's buffers for the model named `name` in catalogue `db`.
Buffers report_buffers(const fs::path& db, const std::string& name, const std::string& params) {
    const test::CommandResult r = test::run_modelcat("query memory -f json --db " + db.string() + " -p model=" + name + " " + params);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(r.out).get(doc) != simdjson::SUCCESS || doc.get_array().size() != 1) {
        ADD_FAILURE() << "memory report printed: " << r.out.substr(0, 300);
        return {};
    }
    simdjson::dom::element row = doc.get_array().at(0);
    auto bytes = [&](const char* column) -> uint64_t { return row[column].is_int64() ? uint64_t(int64_t(row[column])) : 0; };
    return {bytes("weights_bytes"), bytes("repack_bytes"), bytes("kv_bytes"), bytes("recurrent_bytes"), bytes("output_bytes"),
            bytes("compute_bytes")};
}

// Weights, repack, KV, recurrent state and output to the MiB llama.cpp prints; compute within 10 % or 32 MiB.
// The KV cache's caches are logged one line each, each rounded on its own.
void expect_agrees(const Buffers& b, simdjson::dom::element model_log, simdjson::dom::element log, size_t caches) {
    EXPECT_EQ(bytes_mib100(b.weights), log_mib100(model_log, "CPU_REPACK"));
    EXPECT_EQ(bytes_mib100(b.repack), log_mib100(model_log) - log_mib100(model_log, "CPU_REPACK"));
    EXPECT_LE(std::abs(bytes_mib100(b.kv) - log_mib100(log["kv_buffers"])), static_cast<int64_t>(caches > 1 ? caches - 1 : 0));
    EXPECT_EQ(bytes_mib100(b.recurrent), log_mib100(log["rs_buffers"]));
    EXPECT_EQ(bytes_mib100(b.output), log_mib100(log["output"]));
    const double compute = static_cast<double>(log_mib100(log["compute"])) / 100.0, mine = static_cast<double>(b.compute) / (1024.0 * 1024.0);
    EXPECT_LE(std::abs(mine - compute), std::max(0.10 * compute, 32.0)) << "compute: llama.cpp " << compute << " MiB, ours " << mine;
}

const OracleSetting kOracleSettings[] = {
    {4096, format::CacheType::f16, format::Flash::automatic, R"({"ctx":4096})", "-p ctx=4096"},
    {1000, format::CacheType::f16, format::Flash::off, R"({"ctx":1000,"flash":"off"})", "-p ctx=1000 -p flash=off"},
    {32768, format::CacheType::q8_0, format::Flash::on, R"({"ctx":32768,"cache":"q8_0","flash":"on"})", "-p ctx=32768 -p cache=q8_0 -p flash=on"},
};

}  // namespace

bool oracle_file(const std::string& name) {
    return name == "llama-gqa-q4_k" || name == "gemma2-f16" || name == "deepseek2-mla-q4_k" || name == "mamba2-q8_0" ||
           name == "lfm2-hybrid-q4_0" || name == "gpt-oss-mxfp4" || name == "qwen3-iq4_nl";
}

// The engine and the memory report (on a catalogue the binary crawled) against llama.cpp.
TEST_F(MemoryOracle, EngineAndReportAgreeWithLlamaCppOnGeneratedArchitectures) {
    std::string settings = "[";
    for (const OracleSetting& s : kOracleSettings) settings += std::string(settings.size() > 1 ? "," : "") + s.json;
    settings += "]";
    const fs::path store = dir.path() / "store", db = dir.path() / "catalog.db";
    fs::create_directories(store);
    for (const kit::ArchFile& f : kit::arch_files(kit::ArchScale::small))
        if (oracle_file(f.name)) f.gguf.write(store / (f.name + ".gguf"));
    ASSERT_EQ(test::run_modelcat("crawl -q --db " + db.string() + " " + store.string()).exit_code, 0);
    for (const kit::ArchFile& f : kit::arch_files(kit::ArchScale::small)) {
        if (!oracle_file(f.name)) continue;
        SCOPED_TRACE(f.name);
        const fs::path path = store / (f.name + ".gguf");
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
            simdjson::dom::element log = c["log"];
            simdjson::dom::array buffers = log["kv_buffers"], sizes = log["kv"];  // one each per cache: full, then sliding
            ASSERT_EQ(buffers.size(), fig.caches.size());
            ASSERT_EQ(sizes.size(), fig.caches.size());
            for (size_t k = 0; k < fig.caches.size(); ++k) {
                EXPECT_EQ(bytes_mib100(fig.caches[k].k_bytes + fig.caches[k].v_bytes), int64_t(buffers.at(k)["mib100"]));
                EXPECT_EQ(fig.caches[k].cells, uint64_t(sizes.at(k)["cells"]));
            }
            {
                SCOPED_TRACE("the engine");
                expect_agrees({fig.weights_bytes, fig.repack_bytes, fig.kv_bytes, fig.recurrent_bytes, fig.output_bytes, fig.compute_bytes},
                              o["model"]["log"]["model"], log, buffers.size());
            }
            {
                SCOPED_TRACE("the memory report");
                expect_agrees(report_buffers(db, f.name, s.report_params), o["model"]["log"]["model"], log, buffers.size());
            }
        }
        EXPECT_EQ(i, std::size(kOracleSettings));
    }
}
