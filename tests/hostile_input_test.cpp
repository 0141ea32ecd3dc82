// Hostile input against resources: a file cut at any byte is an error at or
// before the cut, and no header, whatever counts and lengths it claims, makes
// a parser allocate more than a small multiple of the bytes it really holds.
// The per-field negative files are in tests/negative/negative_files_test.cpp.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>

#include "format/gguf.hpp"
#include "format/safetensors.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/safetensors_writer.hpp"
#include "model/error.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufType;
using kit::GgufValue;
using kit::GgufWriter;

namespace {

TEST(HostileSafetensors, EveryTruncationIsAnError) {
    kit::SafetensorsWriter w;
    w.add("x", "F16", {3, 2});
    w.add("y", "I64", {2});
    w.set_metadata({{"format", "pt"}});
    std::vector<uint8_t> b = w.header();
    b.resize(w.file_size(), 0);
    for (size_t k = 0; k < b.size(); ++k) {
        try {
            format::parse_safetensors(std::span(b).first(k), k);
            FAIL() << "cut at " << k << " parsed";
        } catch (const model::FormatError& e) {
            ASSERT_TRUE(e.offset().has_value()) << e.what();
            EXPECT_LE(*e.offset(), k) << e.what();
        }
    }
}

// ---- memory ----

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kTiB = 1ull << 40;
constexpr int kOutOfMemory = 3;

uint64_t address_space_bytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.starts_with("VmSize:")) return std::stoull(line.substr(7)) * 1024;
    throw std::runtime_error("no VmSize in /proc/self/status");
}

// Runs `work` in a child whose address space may grow by `budget` bytes past
// its size at the fork. Returns the exit code: 0 when `work` returned or threw
// FormatError, kOutOfMemory on bad_alloc, 4 on another exception.
int run_with_memory_budget(const std::function<void()>& work, uint64_t budget) {
    const pid_t pid = fork();
    if (pid == 0) {
        const rlim_t limit = address_space_bytes() + budget;
        const rlimit lim{limit, limit};
        if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(5);
        try {
            work();
            _exit(0);
        } catch (const model::FormatError&) {
            _exit(0);
        } catch (const std::bad_alloc&) {
            _exit(kOutOfMemory);
        } catch (...) {
            _exit(4);
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Input {
    std::string name;
    std::vector<uint8_t> bytes;
    bool safetensors = false;
};

void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

// Headers that claim far more than the budget (counts and lengths at the caps:
// 2^20 tensors and keys, 2^28 array elements, 64 MiB strings) in a few bytes,
// and half-MiB headers packed with the smallest entries each format allows.
std::vector<Input> adversarial_inputs() {
    std::vector<Input> in;
    GgufWriter counts;
    counts.override_tensor_count(1u << 20);
    counts.override_kv_count(1u << 20);
    in.push_back({"gguf counts at the caps", counts.header()});

    GgufWriter str;
    str.add_kv("s", GgufValue::str("x"));
    std::vector<uint8_t> b = str.header();
    put_u64(b, str.kv_offset(0) + 8 + 1 + 4, 64 * kMiB);  // the string's length
    in.push_back({"gguf 64 MiB string", b});

    for (GgufType elem : {GgufType::string, GgufType::array, GgufType::u64}) {
        GgufWriter arr;
        arr.add_kv("a", GgufValue::array(elem, {}));
        b = arr.header();
        put_u64(b, arr.kv_offset(0) + 8 + 1 + 4 + 4, 1u << 28);  // the array's length
        in.push_back({"gguf 2^28-element array of type " + std::to_string(static_cast<int>(elem)), b});
    }

    GgufValue deep = GgufValue::array(GgufType::string, {GgufValue::str("x")});
    for (int i = 0; i < 7; ++i) deep = GgufValue::array(GgufType::array, {deep});
    GgufWriter nested;
    nested.add_kv("deep", deep);
    b = nested.header();
    for (int level = 0; level < 8; ++level)  // every level claims 2^28 elements
        put_u64(b, nested.kv_offset(0) + 8 + 4 + 4 + 4 + 12 * level, 1u << 28);
    in.push_back({"gguf 8 nested arrays of 2^28", b});

    GgufWriter tensors;
    tensors.add_tensor("t", {1u << 15, 1u << 15, 1u << 15}, 0, 0);
    tensors.override_tensor_count(1u << 20);
    in.push_back({"gguf 2^20 tensors claimed", tensors.header()});

    GgufWriter keys;  // ~550 KiB of uint8 keys "k0".."k29999"
    for (int i = 0; i < 30'000; ++i) keys.add_kv(std::string("k").append(std::to_string(i)), GgufValue::u8(1));
    in.push_back({"gguf 550 KiB of minimal keys", keys.header()});

    GgufWriter infos;  // ~550 KiB of empty one-dimensional F32 tensors "t0".."t14999"
    for (int i = 0; i < 15'000; ++i) infos.add_tensor(std::string("t").append(std::to_string(i)), {0}, 0);
    in.push_back({"gguf 550 KiB of minimal tensor infos", infos.header()});

    auto st = [&](std::string name, const std::string& json) {
        std::vector<uint8_t> h(8 + json.size());
        put_u64(h, 0, json.size());
        std::memcpy(h.data() + 8, json.data(), json.size());
        in.push_back({std::move(name), h, true});
    };
    std::vector<uint8_t> claim(16, ' ');
    put_u64(claim, 0, 100'000'000);
    in.push_back({"safetensors 100 MB header claimed", claim, true});
    st("safetensors 512 KiB of nested brackets", std::string(kMiB / 4, '[') + std::string(kMiB / 4, ']'));
    std::string shape = R"({"a":{"dtype":"U8","data_offsets":[0,0],"shape":[0)";
    while (shape.size() < kMiB / 2) shape += ",1";
    st("safetensors 512 KiB shape", shape + "]}}");
    std::string meta = R"({"__metadata__":{"k":"")";
    for (int i = 0; meta.size() < kMiB / 2; ++i) meta += ",\"k" + std::to_string(i) + "\":\"\"";
    st("safetensors 512 KiB of metadata keys", meta + "}}");
    std::string many = "{";
    for (int i = 0; many.size() < kMiB / 2; ++i)
        many += "\"t" + std::to_string(i) + R"(":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},)";
    many.back() = '}';
    st("safetensors 512 KiB of empty tensors", many);
    return in;
}

// 64 MiB: about 120 bytes per byte of the largest input (the parsers take up
// to ~50), and less than trusting any one claim would (a 64 MiB string, 2^20
// tensor infos, 2^28 elements).
constexpr uint64_t kBudget = 64 * kMiB;

TEST(HostileMemory, TheBudgetStopsAnAllocationOverIt) {
    if (test::sanitized()) GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space";
    EXPECT_EQ(run_with_memory_budget([] { std::vector<char>(2 * kBudget).at(kBudget) = 1; }, kBudget), kOutOfMemory);
    EXPECT_EQ(run_with_memory_budget([] { std::vector<char>(kBudget / 2).at(0) = 1; }, kBudget), 0);
}

TEST(HostileMemory, NoHeaderMakesTheParserAllocateByItsClaims) {
    if (test::sanitized()) GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space";
    for (const Input& input : adversarial_inputs()) {
        auto parse = input.safetensors ? &format::parse_safetensors : &format::parse_gguf;
        // as a whole file, and as the start of a 1 TiB file (every claim fits)
        for (uint64_t file_size : {uint64_t{input.bytes.size()}, kTiB}) {
            SCOPED_TRACE(input.name + ", file of " + std::to_string(file_size) + " bytes");
            EXPECT_EQ(run_with_memory_budget([&] { parse(input.bytes, file_size, {}); }, kBudget), 0);
        }
    }
}

}  // namespace
