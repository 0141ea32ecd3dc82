// A corpus of hostile files: mutants of the real fixtures and of kit files
// (bit flips, random bytes and words in the header, bytes written inside
// keys, tensor names and string values, truncations), crawled through the
// binary. The crawl ends, every mutant is catalogued or an error, no stderr
// line holds a control character, and every TEXT value of every table and
// view reads back through a strict UTF-8 decoder (tests/strict_utf8_read.py).
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "format/gguf.hpp"
#include "kit/file_out.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/safetensors_writer.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kSmallHeader = 64 << 10;
constexpr int kMutantsPerSmallFile = 60, kMutantsPerLargeFile = 8;
constexpr int kOps = 5;  // bit flips, random bytes, a word, bytes inside text, truncation

struct Source {
    std::string stem, ext;
    std::vector<uint8_t> bytes;                           // the whole file
    uint64_t header_len = 0;                              // the part worth mutating
    std::vector<std::pair<uint64_t, uint64_t>> strings;  // [begin, end) of keys, names and string values
};

// Where a GGUF's text lies, from its own parse: keys, tensor names, string values.
void find_gguf_strings(Source& s) {
    model::FileHeader h = std::get<model::FileHeader>(format::parse_gguf(s.bytes, s.bytes.size()));
    s.header_len = h.parsed_bytes;
    const uint64_t w = h.version == 1 ? 4 : 8;
    for (const auto& e : h.metadata) {
        uint64_t key = e.offset + w;
        s.strings.push_back({key, key + e.key.size()});
        if (const auto* v = std::get_if<std::string>(&e.value)) {
            uint64_t value = key + e.key.size() + 4 + w;
            s.strings.push_back({value, value + v->size()});
        }
    }
    for (const auto& t : h.tensors) s.strings.push_back({t.info_offset + w, t.info_offset + w + t.name.size()});
}

Source make_source(std::string stem, std::string ext, std::vector<uint8_t> bytes) {
    Source s{std::move(stem), std::move(ext), std::move(bytes), 0, {}};
    if (s.ext == ".gguf") {
        find_gguf_strings(s);
    } else {
        uint64_t n = 0;
        std::memcpy(&n, s.bytes.data(), 8);
        s.header_len = 8 + n;
        s.strings.push_back({8, s.header_len});
    }
    return s;
}

std::vector<uint8_t> kit_gguf(uint32_t version, kit::Endian endian) {
    kit::GgufWriter w(version, endian);
    w.add_kv("general.architecture", kit::GgufValue::str("llama"));
    w.add_kv("general.name", kit::GgufValue::str("Kit Model \xc3\xa9\xe2\x82\xac"));
    w.add_kv("tokenizer.ggml.tokens", kit::GgufValue::string_array({"<s>", "</s>", "\xe2\x96\x81the", "a", "b", "c"}));
    w.add_kv("llama.block_count", kit::GgufValue::u32(2));
    for (int i = 0; i < 2; ++i) {
        w.add_tensor("blk." + std::to_string(i) + ".attn_q.weight", {32, 2}, 8);  // Q8_0
        w.add_tensor("blk." + std::to_string(i) + ".attn_norm.weight", {32}, 0);
    }
    std::vector<uint8_t> b = w.header();
    b.resize(w.file_size());
    return b;
}

std::vector<uint8_t> kit_safetensors() {
    kit::SafetensorsWriter w;
    w.add("model.layers.0.self_attn.q_proj.weight", "BF16", {4, 4});
    w.add("model.norm.weight", "F32", {4});
    w.set_metadata({{"format", "pt"}, {"note", "caf\xc3\xa9"}});
    std::vector<uint8_t> b = w.header();
    b.resize(w.file_size());
    return b;
}

std::vector<Source> sources() {
    std::vector<Source> out;
    for (const auto& entry : fs::directory_iterator(test::fixtures_dir())) {
        std::string ext = entry.path().extension().string();
        if (ext != ".gguf" && ext != ".safetensors") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
        out.push_back(make_source(entry.path().stem().string(), ext, std::move(bytes)));
    }
    out.push_back(make_source("kit-v3", ".gguf", kit_gguf(3, kit::Endian::little)));
    out.push_back(make_source("kit-v1", ".gguf", kit_gguf(1, kit::Endian::little)));
    out.push_back(make_source("kit-big-endian", ".gguf", kit_gguf(3, kit::Endian::big)));
    out.push_back(make_source("kit", ".safetensors", kit_safetensors()));
    return out;
}

// High bytes break UTF-8; controls test the terminal; the rest is noise.
uint8_t hostile_byte(std::mt19937_64& rng) {
    switch (rng() % 3) {
        case 0: return static_cast<uint8_t>(0x80 + rng() % 0x80);
        case 1: return static_cast<uint8_t>(rng() % 0x20);
        default: return static_cast<uint8_t>(rng());
    }
}

// The mutated header and the file size the mutant claims (the data after the header is a hole).
std::pair<std::vector<uint8_t>, uint64_t> mutate(const Source& s, int op, std::mt19937_64& rng) {
    std::vector<uint8_t> b(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(s.header_len));
    uint64_t size = s.bytes.size();
    auto at = [&] { return rng() % b.size(); };
    switch (op) {
        case 0:
            for (int k = 1 + rng() % 4; k > 0; --k) b[at()] ^= static_cast<uint8_t>(1u << (rng() % 8));
            break;
        case 1:
            for (int k = 1 + rng() % 8; k > 0; --k) b[at()] = hostile_byte(rng);
            break;
        case 2: {
            const uint64_t words[] = {0, 1, 0xffffffffull, 0x7fffffffffffffffull, uint64_t(rng() % 300), rng()};
            uint64_t v = words[rng() % std::size(words)];
            uint64_t pos = rng() % (b.size() - 8);
            std::memcpy(b.data() + pos, &v, rng() % 2 ? 8 : 4);
            break;
        }
        case 3: {
            auto [begin, end] = s.strings[rng() % s.strings.size()];
            for (int k = 1 + rng() % 3; k > 0 && end > begin; --k) b[begin + rng() % (end - begin)] = hostile_byte(rng);
            break;
        }
        default:
            size = rng() % s.header_len;
            b.resize(size);
    }
    return {std::move(b), size};
}

int write_corpus(const fs::path& dir) {
    std::mt19937_64 rng(15);
    int n = 0;
    for (const Source& s : sources()) {
        int count = s.header_len <= kSmallHeader ? kMutantsPerSmallFile : kMutantsPerLargeFile;
        for (int i = 0; i < count; ++i, ++n) {
            auto [head, size] = mutate(s, i % kOps, rng);
            kit::write_file(dir / (std::to_string(n) + "-" + s.stem + s.ext), head, size, kit::DataMode::sparse);
        }
    }
    return n;
}

TEST(MutantCorpus, EveryTextValueIsUtf8AndNoControlCharacterReachesStderr) {
    test::TempDir tmp;
    fs::create_directories(tmp / "corpus");
    const int mutants = write_corpus(tmp / "corpus");
    ASSERT_GE(mutants, 1000);
    std::string db = (tmp / "c.db").string();
    test::CommandResult r = test::run_modelcat("crawl -q --json-summary --db " + db + " " + (tmp / "corpus").string(),
                                               "timeout 600 ");  // a hang guard
    ASSERT_LE(r.exit_code, 1) << r.err.substr(0, 2000);
    EXPECT_EQ(test::first_control_character(r.err), "");
    int catalogued = std::stoi(test::sql_value(db, "SELECT files_ok FROM crawls"));
    int failed = std::stoi(test::sql_value(db, "SELECT files_failed FROM crawls"));
    EXPECT_EQ(catalogued + failed, mutants) << r.out;
    // the corpus reaches both sides of the policy
    EXPECT_GT(std::stoi(test::sql_value(db, "SELECT count(*) FROM errors WHERE message LIKE '%is not valid UTF-8%'")), 0);
    EXPECT_GT(std::stoi(test::sql_value(db, "SELECT count(*) FROM warnings WHERE message LIKE '%string value is not valid UTF-8%'")), 0);
    std::string out = (tmp / "strict.txt").string();
    int rc = std::system(("python3 " MODELCAT_TESTS_DIR "/strict_utf8_read.py " + db + " >" + out + " 2>&1").c_str());
    std::ifstream report(out);
    std::string text{std::istreambuf_iterator<char>(report), {}};
    EXPECT_EQ(rc, 0) << text.substr(0, 4000);
    std::cout << mutants << " mutants: " << catalogued << " catalogued, " << failed << " failed; " << text;
}

}  // namespace
