// The memory engine and the memory report against llama.cpp itself (bench/memory/oracle.mjs: node-llama-cpp's prebuilt CPU
// backend, installed by scripts/install-deps): generated files of several architectures, loaded for
// real, must give the weights, repack, KV, recurrent and output buffers to the MiB llama.cpp prints,
// and a compute buffer within 10 % or 32 MiB. Where Node.js >= 20 or the package is missing the suite
// skips, except under CI, where that is a failure.
//
// llama.cpp's CPU backend is chosen for this host's CPU: on AVX2 and AVX-512 it copies some weights into
// CPU_REPACK, which the engine models; with AMX it keeps them in an AMX buffer instead, and without AVX2
// it repacks nothing, which the engine does not model yet. There the weights are a skip naming what
// llama.cpp made, and the context's buffers are compared as everywhere. MODELCAT_ORACLE_CPU=haswell (the
// ctest test MemoryOracle.avx2) runs the oracle as an AVX2-only host would. A file llama.cpp itself
// cannot load on this host is a skip that gives llama.cpp's message.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <memory>
#include <sstream>

#include "kit/arch_files.hpp"
#include "kit/gguf_writer.hpp"
#include "memory/memory.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

const fs::path kOracleDir = fs::path(MODELCAT_SOURCE_DIR) / "bench" / "memory";

// The oracle run with `args` (shell-quoted), its temporary copies kept in `tmp`.
test::CommandResult run_oracle(const std::string& args, const fs::path& tmp) {
    return test::run_command("TMPDIR='" + tmp.string() + "' node '" + (kOracleDir / "oracle.mjs").string() + "' " + args);
}

// Why llama.cpp cannot be run here, or an empty string (asked once: starting the oracle takes seconds).
const std::string& oracle_missing() {
    static const std::string why = [] {
        const test::CommandResult major = test::run_command("node -p 'process.versions.node.split(\".\")[0]'");
        if (major.exit_code != 0 || std::atoi(major.out.c_str()) < 20) return std::string("Node.js >= 20 is not on PATH (scripts/install-deps installs it)");
        if (!fs::exists(kOracleDir / "node_modules" / "node-llama-cpp")) return std::string("bench/memory has no node_modules (scripts/install-deps installs them)");
        test::TempDir tmp;
        const test::CommandResult version = run_oracle("--version", tmp.path());
        if (version.exit_code != 0) return "its CPU backend does not start here: " + version.err.substr(0, 400);
        return std::string();
    }();
    return why;
}

// A missing oracle fails the suite under CI, unless it was asked for a CPU backend this host may lack.
void skip_or_fail_without_oracle() {
    const std::string& why = oracle_missing();
    if (why.empty()) return;
    if (std::getenv("CI") && !std::getenv("MODELCAT_ORACLE_CPU")) FAIL() << "llama.cpp cannot run: " << why;
    GTEST_SKIP() << "llama.cpp cannot run: " << why;
}

// llama.cpp's own words where it refused a file on this host (a failed load, or an abort of ggml's),
// or "" where what the oracle printed is not llama.cpp's refusal.
std::string llama_cpp_refusal(const test::CommandResult& r) {
    if (r.exit_code == 0) return {};
    std::istringstream err(r.err);
    for (std::string line; std::getline(err, line);)
        if (line.find("GGML_ASSERT") != std::string::npos || line.find("GGML_ABORT") != std::string::npos ||
            line.starts_with("oracle: failed to load model"))
            return line;
    return {};
}

// The engine's kernels for what this host's llama.cpp reports of its CPU backend, or none where that
// has kernels the engine does not model (AMX keeps weights in a buffer of its own).
std::optional<memory::CpuKernels> host_kernels(std::string_view system_info) {
    const auto has = [&](std::string_view feature) { return system_info.find(feature) != std::string_view::npos; };
    if (has("AMX_INT8 = 1")) return std::nullopt;
    if (!has("REPACK = 1") || !has("AVX2 = 1")) return memory::CpuKernels::none;
    return has("AVX512 = 1") ? memory::CpuKernels::x86_avx512 : memory::CpuKernels::x86_avx2;
}

// Bytes as llama.cpp prints them (%.2f of MiB: glibc rounds the exact value half to even), in hundredths.
int64_t bytes_mib100(uint64_t bytes) {
    constexpr uint64_t MiB = 1024 * 1024;
    const uint64_t q = bytes * 100 / MiB, r = bytes * 100 % MiB;
    return static_cast<int64_t>(2 * r > MiB || (2 * r == MiB && q % 2 == 1) ? q + 1 : q);
}

// The sum of the logged buffers named `only` (all where empty).
int64_t log_mib100(simdjson::dom::array a, std::string_view only = "") {
    int64_t total = 0;
    for (auto b : a)
        if (only.empty() || std::string_view(b["buffer"]) == only) total += int64_t(b["mib100"]);
    return total;
}

std::string buffers_text(simdjson::dom::array a) {
    std::string text;
    for (auto b : a) text += (text.empty() ? "" : ", ") + std::string(std::string_view(b["buffer"])) + " " + std::to_string(int64_t(b["mib100"])) + "/100 MiB";
    return text;
}

struct OracleSetting {
    uint32_t ctx;
    memory::CacheType cache;
    memory::Flash flash;
    const char* json;
    const char* report_params;  // the same setting for `modelcat query memory`
};

const OracleSetting kOracleSettings[] = {
    {4096, memory::CacheType::f16, memory::Flash::automatic, R"({"ctx":4096})", "-p ctx=4096"},
    {1000, memory::CacheType::f16, memory::Flash::off, R"({"ctx":1000,"flash":"off"})", "-p ctx=1000 -p flash=off"},
    {32768, memory::CacheType::q8_0, memory::Flash::on, R"({"ctx":32768,"cache":"q8_0","flash":"on"})", "-p ctx=32768 -p cache=q8_0 -p flash=on"},
};

const char* const kOracleFiles[] = {"llama-gqa-q4_k", "gemma2-f16", "deepseek2-mla-q4_k", "mamba2-q8_0",
                                    "lfm2-hybrid-q4_0", "gpt-oss-mxfp4", "qwen3-iq4_nl"};

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

// The engine's buffers for `f` at setting `s` on a CPU with `kernels`.
memory::MemoryFigures engine_figures(const kit::ArchFile& f, const OracleSetting& s, memory::CpuKernels kernels) {
    const auto read = memory::read_memory_model(kit::parse_header(f.gguf));
    if (!std::holds_alternative<memory::MemoryModel>(read)) throw std::runtime_error(f.name + ": the engine does not model it");
    return std::get<memory::MemoryFigures>(
        memory::memory_figures(memory::memory_terms(std::get<memory::MemoryModel>(read), kernels), {.ctx = s.ctx, .cache = s.cache, .flash = s.flash}));
}

Buffers buffers_of(const memory::MemoryFigures& fig) {
    return {fig.weights_bytes, fig.repack_bytes, fig.kv_bytes, fig.recurrent_bytes, fig.output_bytes, fig.compute_bytes};
}

// The mapped weights and CPU_REPACK to the MiB llama.cpp prints, and no other buffer.
void expect_weights_agree(const Buffers& b, simdjson::dom::array model_log) {
    EXPECT_EQ(log_mib100(model_log), log_mib100(model_log, "CPU_Mapped") + log_mib100(model_log, "CPU_REPACK")) << buffers_text(model_log);
    EXPECT_EQ(bytes_mib100(b.weights), log_mib100(model_log, "CPU_Mapped"));
    EXPECT_EQ(bytes_mib100(b.repack), log_mib100(model_log, "CPU_REPACK"));
}

// KV cache, recurrent state and output to the MiB llama.cpp prints (the caches are logged one line
// each, each rounded on its own); compute within 10 % or 32 MiB.
void expect_context_agrees(const Buffers& b, simdjson::dom::element log, size_t caches) {
    EXPECT_LE(std::abs(bytes_mib100(b.kv) - log_mib100(log["kv_buffers"])), static_cast<int64_t>(caches > 1 ? caches - 1 : 0));
    EXPECT_EQ(bytes_mib100(b.recurrent), log_mib100(log["rs_buffers"]));
    EXPECT_EQ(bytes_mib100(b.output), log_mib100(log["output"]));
    const double compute = static_cast<double>(log_mib100(log["compute"])) / 100.0, mine = static_cast<double>(b.compute) / (1024.0 * 1024.0);
    EXPECT_LE(std::abs(mine - compute), std::max(0.10 * compute, 32.0)) << "compute: llama.cpp " << compute << " MiB, ours " << mine;
}

// The generated files, their catalogue (crawled by the binary), and llama.cpp's run of each: made once.
struct OracleRuns {
    test::TempDir dir;
    fs::path store = dir.path() / "store", db = dir.path() / "catalog.db";
    std::map<std::string, kit::ArchFile> files;
    std::map<std::string, test::CommandResult> runs;

    OracleRuns() {
        fs::create_directories(store);
        for (kit::ArchFile& f : kit::arch_files(kit::ArchScale::small))
            if (std::find(std::begin(kOracleFiles), std::end(kOracleFiles), f.name) != std::end(kOracleFiles)) {
                f.gguf.write(store / (f.name + ".gguf"));
                files.emplace(f.name, std::move(f));
            }
        const test::CommandResult crawl = test::run_modelcat("crawl -q --db " + db.string() + " " + store.string());
        if (crawl.exit_code != 0) throw std::runtime_error("crawl failed: " + crawl.err);
    }

    const test::CommandResult& run(const std::string& name) {
        if (auto it = runs.find(name); it != runs.end()) return it->second;
        std::string settings = "[";
        for (const OracleSetting& s : kOracleSettings) settings += std::string(settings.size() > 1 ? "," : "") + s.json;
        const fs::path path = store / (name + ".gguf");
        return runs.emplace(name, run_oracle("'" + path.string() + "' --settings '" + settings + "]'", dir.path())).first->second;
    }
};

class MemoryOracle : public ::testing::TestWithParam<const char*> {
protected:
    static void SetUpTestSuite() {
        if (oracle_missing().empty()) runs_ = std::make_unique<OracleRuns>();
    }
    static void TearDownTestSuite() { runs_.reset(); }

    void SetUp() override {
        skip_or_fail_without_oracle();
        if (IsSkipped() || HasFatalFailure()) return;
        run_ = &runs_->run(GetParam());
        if (const std::string refusal = llama_cpp_refusal(*run_); !refusal.empty())
            GTEST_SKIP() << "llama.cpp cannot load " << GetParam() << " on this host: " << refusal;
        ASSERT_EQ(run_->exit_code, 0) << "oracle: " << run_->err.substr(0, 600);
        ASSERT_EQ(parser_.parse(run_->out).get(oracle_), simdjson::SUCCESS) << "oracle printed: " << run_->out.substr(0, 400);
    }

    const kit::ArchFile& file() const { return runs_->files.at(GetParam()); }

    static std::unique_ptr<OracleRuns> runs_;
    const test::CommandResult* run_ = nullptr;
    simdjson::dom::parser parser_;
    simdjson::dom::element oracle_;
};

std::unique_ptr<OracleRuns> MemoryOracle::runs_;

}  // namespace

// The weights as mapped and repacked by the engine, for this host's CPU kernels.
TEST_P(MemoryOracle, EngineWeightBuffersAgreeWithLlamaCpp) {
    simdjson::dom::array model_log = oracle_["model"]["log"]["model"];
    const std::optional<memory::CpuKernels> kernels = host_kernels(std::string_view(oracle_["system_info"]));
    if (!kernels)
        GTEST_SKIP() << "not compared: llama.cpp's CPU backend on this host has AMX (AMX_INT8 = 1), whose weight buffer the memory engine "
                     << "does not model; llama.cpp made " << buffers_text(model_log);
    expect_weights_agree(buffers_of(engine_figures(file(), kOracleSettings[0], *kernels)), model_log);
}

// The weights as the memory report gives them (on a catalogue the binary crawled), which are an AVX2 or AVX-512 host's.
TEST_P(MemoryOracle, ReportWeightBuffersAgreeWithLlamaCpp) {
    simdjson::dom::array model_log = oracle_["model"]["log"]["model"];
    const std::optional<memory::CpuKernels> kernels = host_kernels(std::string_view(oracle_["system_info"]));
    if (kernels != memory::CpuKernels::x86_avx2 && kernels != memory::CpuKernels::x86_avx512)
        GTEST_SKIP() << "not compared: the memory report gives an AVX2 or AVX-512 host's repacked weights, and llama.cpp's CPU backend "
                     << "on this host has " << (kernels ? "no AVX2 kernels" : "AMX (AMX_INT8 = 1)") << "; llama.cpp made " << buffers_text(model_log);
    expect_weights_agree(report_buffers(runs_->db, GetParam(), kOracleSettings[0].report_params), model_log);
}

// The KV cache (each cache's cells and bytes), recurrent state, output and compute buffers at three settings.
TEST_P(MemoryOracle, ContextBuffersAgreeWithLlamaCpp) {
    simdjson::dom::array contexts = oracle_["contexts"];
    ASSERT_EQ(contexts.size(), std::size(kOracleSettings));
    size_t i = 0;
    for (auto c : contexts) {
        const OracleSetting& s = kOracleSettings[i++];
        SCOPED_TRACE(s.json);
        ASSERT_TRUE(c["error"].is_null()) << std::string_view(c["error"]);
        const memory::MemoryFigures fig = engine_figures(file(), s, host_kernels(std::string_view(oracle_["system_info"])).value_or(memory::CpuKernels::x86_avx2));
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
            expect_context_agrees(buffers_of(fig), log, buffers.size());
        }
        {
            SCOPED_TRACE("the memory report");
            expect_context_agrees(report_buffers(runs_->db, GetParam(), s.report_params), log, buffers.size());
        }
    }
}

INSTANTIATE_TEST_SUITE_P(GeneratedArchitectures, MemoryOracle, ::testing::ValuesIn(kOracleFiles), [](const auto& info) {
    std::string name = info.param;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
});

// A file llama.cpp refuses is told apart from a failure of the oracle's own, by llama.cpp's message.
TEST(MemoryOracleRefusal, AFileLlamaCppCannotLoadIsNamedByItsMessage) {
    skip_or_fail_without_oracle();
    if (IsSkipped() || HasFatalFailure()) return;
    test::TempDir dir;
    kit::GgufWriter w;
    w.add_kv("general.architecture", kit::GgufValue::str("modelcat-unknown"));
    w.add_tensor("token_embd.weight", {64, 32}, kit::kF32);
    w.write(dir / "unknown.gguf");
    const test::CommandResult loaded = run_oracle("'" + (dir / "unknown.gguf").string() + "'", dir.path());
    EXPECT_NE(loaded.exit_code, 0);
    EXPECT_NE(llama_cpp_refusal(loaded).find("unknown model architecture: 'modelcat-unknown'"), std::string::npos) << loaded.err;
    const test::CommandResult missing = run_oracle("'" + (dir / "absent.gguf").string() + "'", dir.path());
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_EQ(llama_cpp_refusal(missing), "") << "the oracle's own failure is not llama.cpp's refusal: " << missing.err;
}
