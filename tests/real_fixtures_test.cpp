// Every real third-party file in ../shared/fixtures/real is crawled into a
// real SQLite catalogue, and what the catalogue holds is compared with the
// independent parser's .oracle.json beside the file.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>

#include "catalog/writer.hpp"
#include "crawl/crawler.hpp"
#include "format/json_text.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using namespace modelcat;

namespace {

class RealFixtures : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        catalog_ = new catalog::Writer((dir_->path() / "catalog.db").string());
        const crawl::CrawlOptions options;
        report_ = new crawl::CrawlReport(crawl::run_crawl(*catalog_, {test::fixtures_dir().string()}, options));
        db_ = new SQLite::Database((dir_->path() / "catalog.db").string());
    }
    static void TearDownTestSuite() {
        delete db_;
        delete report_;
        delete catalog_;
        delete dir_;
    }
    static std::vector<fs::path> oracles(std::string_view ext) {
        std::vector<fs::path> v;
        for (const auto& e : fs::directory_iterator(test::fixtures_dir())) {
            std::string n = e.path().filename().string();
            if (n.ends_with(std::string(ext) + ".oracle.json")) v.push_back(e.path());
        }
        std::sort(v.begin(), v.end());
        return v;
    }
    static std::string model_file(const fs::path& oracle) {
        std::string s = oracle.string();
        return s.substr(0, s.size() - std::string(".oracle.json").size());
    }
    static int64_t file_id(const std::string& location) {
        SQLite::Statement st(*db_, "SELECT file_id FROM files WHERE location = ?");
        st.bind(1, location);
        if (!st.executeStep()) return -1;
        return st.getColumn(0).getInt64();
    }
    static inline test::TempDir* dir_;
    static inline catalog::Writer* catalog_;
    static inline SQLite::Database* db_;  // the tests' own connection to the catalogue
    static inline crawl::CrawlReport* report_;
    simdjson::dom::parser parser_;
};

std::string dims_json(simdjson::dom::array shape) {
    std::vector<uint64_t> d;
    for (auto x : shape) d.push_back(uint64_t(x));
    return format::json_dims(d);
}

TEST_F(RealFixtures, EveryFileIsCatalogued) {
    EXPECT_EQ(report_->totals.files_failed, 0u);
    EXPECT_EQ(report_->totals.files_ok(), oracles(".gguf").size() + oracles(".safetensors").size());
    EXPECT_GE(report_->totals.files_ok(), 27u);
}

TEST_F(RealFixtures, GgufMatchesOracle) {
    for (const auto& oracle : oracles(".gguf")) {
        SCOPED_TRACE(oracle.filename().string());
        simdjson::dom::element o = parser_.load(oracle.string());
        int64_t fid = file_id(model_file(oracle));
        ASSERT_GE(fid, 0);
        SQLite::Statement f(*db_,
                            "SELECT version, endianness, size, data_start, alignment, declared_kv_count, tensor_count FROM files WHERE file_id = ?");
        f.bind(1, fid);
        ASSERT_TRUE(f.executeStep());
        EXPECT_EQ(f.getColumn(0).getInt64(), int64_t(o["version"]));
        EXPECT_EQ(f.getColumn(1).getString(), bool(o["little_endian"]) ? "little" : "big");
        EXPECT_EQ(f.getColumn(2).getInt64(), int64_t(o["file_size"]));
        EXPECT_EQ(f.getColumn(3).getInt64(), int64_t(o["tensor_data_offset"]));
        EXPECT_EQ(f.getColumn(4).getInt64(), int64_t(o["alignment_used"]));
        EXPECT_EQ(f.getColumn(5).getInt64(), int64_t(o["kv_count"]));
        EXPECT_EQ(f.getColumn(6).getInt64(), int64_t(o["tensor_count"]));

        // metadata keys, in file order, one per distinct key
        std::vector<std::string> keys;
        SQLite::Statement mk(*db_, "SELECT key FROM metadata WHERE file_id = ? ORDER BY offset");
        mk.bind(1, fid);
        while (mk.executeStep()) keys.push_back(mk.getColumn(0).getString());
        std::vector<std::string> want;
        for (auto k : o["metadata_keys"].get_array()) want.emplace_back(std::string_view(k));
        EXPECT_EQ(keys, want);

        // scalar values and array lengths
        for (auto [key, value] : o["metadata"].get_object()) {
            SCOPED_TRACE(std::string(key));
            SQLite::Statement mv(*db_, "SELECT value, array_length, value_type FROM metadata WHERE file_id = ? AND key = ?");
            mv.bind(1, fid);
            mv.bind(2, std::string(key));
            ASSERT_TRUE(mv.executeStep());
            if (value.is_object()) {
                EXPECT_EQ(mv.getColumn(1).getInt64(), int64_t(value["array_len"]));
                if (!mv.getColumn(0).isNull()) {  // small arrays are stored as JSON: their head must match
                    simdjson::dom::parser p2;
                    simdjson::dom::array stored = p2.parse(mv.getColumn(0).getString()).get_array();
                    size_t i = 0;
                    for (auto h : value["head"].get_array()) {
                        simdjson::dom::element s = stored.at(i++);
                        if (h.is_string()) EXPECT_EQ(std::string_view(s), std::string_view(h));
                        else EXPECT_DOUBLE_EQ(double(s), double(h));
                    }
                }
            } else if (value.is_string()) {
                // the oracle writes 64-bit integers as strings and clips long strings
                std::string want{std::string_view(value)}, got = mv.getColumn(0).getString();
                // "<prefix> ...[clipped; 269 chars total]"
                size_t cut = want.rfind(" ...[clipped; ");
                if (cut != std::string::npos && want.ends_with(" chars total]")) {
                    EXPECT_EQ(got.substr(0, cut), want.substr(0, cut));
                    EXPECT_EQ(got.size(), std::stoul(want.substr(cut + 14)));
                } else {
                    EXPECT_EQ(got, want);
                }
            } else if (value.is_bool()) {
                EXPECT_EQ(mv.getColumn(0).getInt(), bool(value) ? 1 : 0);
            } else {
                EXPECT_DOUBLE_EQ(mv.getColumn(0).getDouble(), double(value));
            }
        }

        // tensors: name, shape (ne[0] first), type, offset, in file order
        SQLite::Statement t(*db_,
                            "SELECT name, n_dims, dims, type_id, offset, info_offset FROM tensors WHERE file_id = ? ORDER BY info_offset");
        t.bind(1, fid);
        bool first = true;
        for (auto ot : o["tensors"].get_array()) {
            ASSERT_TRUE(t.executeStep());
            EXPECT_EQ(t.getColumn(0).getString(), std::string_view(ot["name"]));
            EXPECT_EQ(t.getColumn(1).getInt64(), int64_t(ot["n_dims"]));
            EXPECT_EQ(t.getColumn(2).getString(), dims_json(ot["shape"]));
            EXPECT_EQ(t.getColumn(3).getInt64(), int64_t(ot["type_id"]));
            EXPECT_EQ(t.getColumn(4).getInt64(), int64_t(ot["offset"]));
            if (first) {
                EXPECT_EQ(t.getColumn(5).getInt64(), int64_t(o["tensor_info_byte_range"].at(0)));
            }
            first = false;
        }
        EXPECT_FALSE(t.executeStep()) << "more tensors than the oracle";
    }
}

TEST_F(RealFixtures, SafetensorsMatchesOracle) {
    for (const auto& oracle : oracles(".safetensors")) {
        SCOPED_TRACE(oracle.filename().string());
        simdjson::dom::element o = parser_.load(oracle.string());
        int64_t fid = file_id(model_file(oracle));
        ASSERT_GE(fid, 0);
        SQLite::Statement f(*db_, "SELECT size, header_bytes, tensor_count, endianness, version FROM files WHERE file_id = ?");
        f.bind(1, fid);
        ASSERT_TRUE(f.executeStep());
        EXPECT_EQ(f.getColumn(0).getInt64(), int64_t(o["file_size"]));
        EXPECT_EQ(f.getColumn(1).getInt64(), 8 + int64_t(o["header_length"]));
        EXPECT_EQ(f.getColumn(2).getInt64(), int64_t(o["tensor_count"]));
        EXPECT_TRUE(f.getColumn(4).isNull());

        std::map<std::string, std::string> meta;
        SQLite::Statement m(*db_, "SELECT key, value FROM metadata WHERE file_id = ?");
        m.bind(1, fid);
        while (m.executeStep()) meta[m.getColumn(0).getString()] = m.getColumn(1).getString();
        std::map<std::string, std::string> want;
        if (o["__metadata__"].is_object())
            for (auto [k, v] : o["__metadata__"].get_object()) want[std::string(k)] = std::string(std::string_view(v));
        EXPECT_EQ(meta, want);

        for (auto ot : o["tensors"].get_array()) {
            std::string name{std::string_view(ot["name"])};
            SCOPED_TRACE(name);
            SQLite::Statement t(*db_,
                                "SELECT type_name, dims, offset, offset + bytes, type_id FROM tensors WHERE file_id = ? AND name = ?");
            t.bind(1, fid);
            t.bind(2, name);
            ASSERT_TRUE(t.executeStep());
            EXPECT_EQ(t.getColumn(0).getString(), std::string_view(ot["dtype"]));
            EXPECT_EQ(t.getColumn(1).getString(), dims_json(ot["shape"]));
            EXPECT_EQ(t.getColumn(2).getInt64(), int64_t(ot["data_offsets"].at(0)));
            EXPECT_EQ(t.getColumn(3).getInt64(), int64_t(ot["data_offsets"].at(1)));
            EXPECT_TRUE(t.getColumn(4).isNull());
        }
    }
}

TEST_F(RealFixtures, DuplicateKeysAreKeptOnceWithAWarning) {
    // gguf-py wrote general.architecture twice in IREE's files: kv_count 6, 5 distinct keys
    std::string loc = (test::fixtures_dir() / "iree-single-v3.gguf").string();
    SQLite::Statement st(*db_,
                         "SELECT (SELECT count(*) FROM metadata WHERE file_id = f.file_id), f.declared_kv_count,"
                         " (SELECT group_concat(message) FROM warnings WHERE location = f.location)"
                         " FROM files f WHERE location = ?");
    st.bind(1, loc);
    ASSERT_TRUE(st.executeStep());
    EXPECT_EQ(st.getColumn(0).getInt(), 5);
    EXPECT_EQ(st.getColumn(1).getInt(), 6);
    EXPECT_NE(st.getColumn(2).getString().find("duplicate key 'general.architecture'"), std::string::npos);
}

TEST_F(RealFixtures, VocabOnlyFileEndsBeforeTheAlignedDataStart) {
    std::string loc = (test::fixtures_dir() / "ggml-vocab-baichuan.gguf").string();
    SQLite::Statement st(*db_, "SELECT size, header_bytes, data_start FROM files WHERE location = ?");
    st.bind(1, loc);
    ASSERT_TRUE(st.executeStep());
    EXPECT_LT(st.getColumn(0).getInt64(), st.getColumn(2).getInt64());
    EXPECT_EQ(st.getColumn(1).getInt64(), st.getColumn(0).getInt64());  // clamped to the file
}

TEST_F(RealFixtures, HeadersOnlyAreRead) {
    // the 1.75 MB llama-2-tiny file has a 724,416-byte header: reading must stop near it
    std::string loc = (test::fixtures_dir() / "llama-2-tiny-random.gguf").string();
    SQLite::Statement st(*db_, "SELECT bytes_read, header_bytes, size FROM files WHERE location = ?");
    st.bind(1, loc);
    ASSERT_TRUE(st.executeStep());
    EXPECT_GE(st.getColumn(0).getInt64(), st.getColumn(1).getInt64());
    EXPECT_LT(st.getColumn(0).getInt64(), st.getColumn(2).getInt64());
}

TEST_F(RealFixtures, IdenticalTokenizersShareAHash) {
    // llama-2-tiny-random carries the same 32,000-token SentencePiece vocabulary as
    // ggml-vocab-llama-spm; phi-3 extends it to 32,064 tokens and must differ.
    auto hash_of = [&](const std::string& file, const std::string& key) {
        SQLite::Statement st(*db_,
                             "SELECT m.array_hash, m.array_length FROM metadata m JOIN files f USING (file_id)"
                             " WHERE f.location = ? AND m.key = ?");
        st.bind(1, (test::fixtures_dir() / file).string());
        st.bind(2, key);
        EXPECT_TRUE(st.executeStep()) << file << " " << key;
        EXPECT_TRUE(st.getColumn(0).isText());
        return st.getColumn(0).getString() + "/" + st.getColumn(1).getString();
    };
    for (const char* key : {"tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"}) {
        SCOPED_TRACE(key);
        EXPECT_EQ(hash_of("llama-2-tiny-random.gguf", key), hash_of("ggml-vocab-llama-spm.gguf", key));
        EXPECT_NE(hash_of("ggml-vocab-phi-3.gguf", key), hash_of("ggml-vocab-llama-spm.gguf", key));
    }
}

}  // namespace
