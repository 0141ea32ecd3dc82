// The dequantizers against an independent implementation: values gguf-py's
// numpy dequantizers computed (tests/data/dequant/PROVENANCE.md) for random
// blocks of every type it decodes, and for every tensor of llama.cpp's own
// quantizer output in ../shared/fixtures/llama-cpp/gguf/ (checksums of whole
// tensors, one row per type value by value). Every value must have the same bits.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include "dequant/dequant.hpp"
#include "dequant/dequant_blocks.hpp"
#include "model/ggml_types.hpp"
#include "format/gguf.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

fs::path data_dir() { return fs::path(MODELCAT_TESTS_DIR) / "data" / "dequant"; }

std::vector<uint8_t> read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<float> read_floats(const fs::path& p) {
    auto bytes = read_bytes(p);
    std::vector<float> v(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), v.size() * 4);
    return v;
}

uint32_t type_id(std::string_view name) {
    for (const auto& t : model::ggml_types())
        if (t.name == name) return t.id;
    ADD_FAILURE() << "no ggml type " << name;
    return 0;
}

std::vector<float> decode(uint32_t type, std::span<const uint8_t> bytes) {
    const model::GgmlType& t = *model::find_ggml_type(type);
    std::vector<float> y(bytes.size() / t.type_size * t.block_size);
    dequant::dequantize(type, bytes, y);
    return y;
}

// The first element whose bits differ, or -1.
long first_difference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i])) return static_cast<long>(i);
    return -1;
}

// The checksums PROVENANCE.md describes: sum of (i + 1) * bits(v[i]) and sum of bits(v[i]), mod 2^64.
std::pair<uint64_t, uint64_t> checksum(const std::vector<float>& v) {
    uint64_t weighted = 0, plain = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        uint64_t bits = std::bit_cast<uint32_t>(v[i]);
        weighted += bits * (i + 1), plain += bits;
    }
    return {weighted, plain};
}

std::vector<std::vector<std::string>> read_tsv(const fs::path& p) {
    std::ifstream in(p);
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string cell; std::getline(ss, cell, '\t');) cells.push_back(cell);
        rows.push_back(cells);
    }
    return rows;
}

// One fixture GGUF, parsed, with its bytes.
struct Gguf {
    std::vector<uint8_t> bytes;
    model::FileHeader header;

    explicit Gguf(const std::string& name) : bytes(read_bytes(test::llama_cpp_fixtures_dir() / "gguf" / name)) {
        header = std::get<model::FileHeader>(format::parse_gguf(bytes, bytes.size()));
    }
    std::vector<float> tensor(const std::string& name) const {
        for (const auto& t : header.tensors)
            if (t.name == name)
                return decode(*t.type_id, std::span(bytes).subspan(header.data_start + t.offset, *t.expected_bytes));
        ADD_FAILURE() << "no tensor " << name;
        return {};
    }
};

}  // namespace

TEST(DequantReference, RandomBlocksOfEveryTypeGgufPyDecodes) {
    int types = 0;
    for (const auto& entry : fs::directory_iterator(data_dir())) {
        if (entry.path().extension() != ".blocks") continue;
        std::string name = entry.path().stem().string();
        auto got = decode(type_id(name), read_bytes(entry.path()));
        auto want = read_floats(fs::path(entry.path()).replace_extension(".f32"));
        ASSERT_EQ(got.size(), want.size()) << name;
        long at = first_difference(got, want);
        EXPECT_EQ(at, -1) << name << ": value " << at << " is " << got[at] << ", gguf-py gives " << want[at];
        ++types;
    }
    EXPECT_EQ(types, 23);
}

TEST(DequantReference, EveryTensorOfTheRealQuantizersFiles) {
    std::map<std::string, Gguf> files;
    std::map<std::string, int> per_type;
    for (const auto& row : read_tsv(data_dir() / "fixture-checksums.tsv")) {
        ASSERT_EQ(row.size(), 6u);
        auto it = files.try_emplace(row[0], row[0]).first;
        auto v = it->second.tensor(row[1]);
        EXPECT_EQ(v.size(), std::stoull(row[3])) << row[1];
        auto [weighted, plain] = checksum(v);
        EXPECT_EQ(weighted, std::stoull(row[4])) << row[0] << " " << row[1];
        EXPECT_EQ(plain, std::stoull(row[5])) << row[0] << " " << row[1];
        ++per_type[row[2]];
    }
    EXPECT_EQ(per_type.size(), 18u);  // F32, F16, BF16, 10 legacy and K types, IQ4_NL, IQ4_XS, IQ3_S, TQ1_0, TQ2_0
    for (const auto& row : read_tsv(data_dir() / "fixture-rows.tsv")) {
        ASSERT_EQ(row.size(), 5u);
        auto v = files.at(row[0]).tensor(row[1]);
        std::vector<float> want;
        std::stringstream ss(row[4]);
        for (std::string cell; std::getline(ss, cell, ',');) want.push_back(std::stof(cell));
        size_t r = std::stoull(row[3]);
        std::vector<float> got(v.begin() + static_cast<long>(r * want.size()), v.begin() + static_cast<long>((r + 1) * want.size()));
        long at = first_difference(got, want);
        EXPECT_EQ(at, -1) << row[1] << " row " << r << ": column " << at;
    }
}

TEST(DequantReference, VectorisedDecodersGiveThePlainOnesBits) {
    if (!dequant::cpu_has_avx2()) GTEST_SKIP() << "no AVX2 on this CPU: only the plain decoders run";
    std::mt19937 rng(7);
    int twins = 0;
    for (const auto& t : model::ggml_types()) {
        auto fast = dequant::dequant_blocks::avx2_decoder(t.id);
        if (!fast) continue;
        ++twins;
        size_t blocks = t.id == model::GgmlTypeId::F16 ? 0x10003 : 4096 / t.block_size + 3;  // odd counts reach the loops' tails
        std::vector<uint8_t> bytes(blocks * t.type_size);
        for (auto& b : bytes) b = static_cast<uint8_t>(rng());
        if (t.id == model::GgmlTypeId::F16)  // every half, NaNs and subnormals included
            for (uint32_t h = 0; h < 0x10000; ++h) bytes[2 * h] = h & 0xFF, bytes[2 * h + 1] = h >> 8;
        std::vector<float> plain(blocks * t.block_size), vec(plain.size());
        dequant::dequant_blocks::plain_decoder(t.id)(bytes.data(), blocks, plain.data());
        fast(bytes.data(), blocks, vec.data());
        for (size_t i = 0; i < plain.size(); ++i)  // a NaN may come out with the other sign bit (x - m computed as x + -m)
            if (std::isnan(plain[i]) && std::isnan(vec[i])) vec[i] = plain[i];
        long at = first_difference(vec, plain);
        EXPECT_EQ(at, -1) << t.name << " value " << at;
    }
    EXPECT_GE(twins, 4);
}
