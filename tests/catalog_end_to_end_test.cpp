// End to end through the real binary and a real SQLite file: a generated
// Llama 3.1 8B Q4_K_M replica beside a real file and a hostile one.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "kit/llama31.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

class CatalogEndToEnd : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(store_);
        kit::llama31_quant("Q4_K_M").write(q4km_);
        fs::copy_file(test::fixtures_dir() / "st-samples-overall.safetensors", store_ / "st-samples-overall.safetensors");
        std::ofstream(store_ / "broken.gguf") << "GGML this is not a gguf file";
        first_ = test::run_modelcat("crawl --db " + db_.string() + " " + store_.string());
    }
    test::TempDir tmp_;
    fs::path store_ = tmp_ / "store";
    fs::path q4km_ = store_ / "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf";
    fs::path db_ = tmp_ / "catalog.db";
    test::CommandResult first_;
};

TEST_F(CatalogEndToEnd, OneBadFileFailsAloneAndTheBatchExitsOne) {
    EXPECT_EQ(first_.exit_code, 1) << first_.err;
    EXPECT_NE(first_.err.find("error: " + (store_ / "broken.gguf").string() + ": offset 0: not a GGUF file: magic \"GGML\""),
              std::string::npos)
        << first_.err;
    EXPECT_NE(first_.err.find("2 files ok (2 new, 0 changed), 0 unchanged, 0 gone, 1 failed"), std::string::npos)
        << first_.err;
    SQLite::Database db(db_.string());
    EXPECT_EQ(db.execAndGet("SELECT count(*) FROM models").getInt(), 2);
    SQLite::Statement e(db, "SELECT location, offset, message FROM errors");
    ASSERT_TRUE(e.executeStep());
    EXPECT_EQ(e.getColumn(0).getString(), (store_ / "broken.gguf").string());
    EXPECT_EQ(e.getColumn(1).getInt(), 0);
    EXPECT_FALSE(e.executeStep());
    EXPECT_EQ(db.execAndGet("SELECT files_ok || '/' || files_failed FROM crawls").getString(), "2/1");
}

TEST_F(CatalogEndToEnd, QuantSummaryHoldsTheHandComputedNumbers) {
    SQLite::Database db(db_.string());
    SQLite::Statement q(db,
                        "SELECT name, location, format, architecture, file_type, file_bytes, header_bytes, params,"
                        " bits_per_weight, tensor_count, kv_count, census FROM quant_summary WHERE format = 'gguf'");
    ASSERT_TRUE(q.executeStep());
    EXPECT_EQ(q.getColumn(0).getString(), "Meta-Llama-3.1-8B-Instruct-Q4_K_M");
    EXPECT_EQ(q.getColumn(1).getString(), q4km_.string());
    EXPECT_EQ(q.getColumn(2).getString(), "gguf");
    EXPECT_EQ(q.getColumn(3).getString(), "llama");
    EXPECT_EQ(q.getColumn(4).getInt(), 15);
    EXPECT_EQ(q.getColumn(5).getInt64(), 4'920'739'232);
    EXPECT_EQ(q.getColumn(6).getInt64(), 7'840'928);
    EXPECT_EQ(q.getColumn(7).getInt64(), 8'030'261'312);
    // (4,920,739,232 - 7,840,928) * 8 / 8,030,261,312
    EXPECT_NEAR(q.getColumn(8).getDouble(), 39'303'186'432.0 / 8'030'261'312.0, 1e-12);
    EXPECT_EQ(std::to_string(q.getColumn(8).getDouble()).substr(0, 6), "4.8943");  // the real file's table prints 4.8944 (rounded)
    EXPECT_EQ(q.getColumn(9).getInt(), 292);
    EXPECT_EQ(q.getColumn(10).getInt(), 33);
    EXPECT_EQ(q.getColumn(11).getString(), "12:193 14:33 0:66");

    SQLite::Statement st(db, "SELECT census FROM quant_summary WHERE format = 'safetensors'");
    ASSERT_TRUE(st.executeStep());
    EXPECT_EQ(st.getColumn(0).getString(), "F16:1 F32:1 F64:1 I16:1 I32:1 I8:1 U16:1 U32:1 U8:1");
}

TEST_F(CatalogEndToEnd, TypeCensusRowsAreExact) {
    SQLite::Database db(db_.string());
    SQLite::Statement q(db,
                        "SELECT c.type_id, c.type_name, c.tensors, c.params, c.bytes, c.bits_per_weight FROM type_census"
                        " c JOIN models m USING (model_id) WHERE m.format = 'gguf' ORDER BY c.params DESC");
    struct Row {
        int type_id;
        const char* name;
        int tensors;
        int64_t params, bytes;
        double bpw;
    };
    const Row want[] = {{12, "Q4_K", 193, 6'498'025'472, 3'655'139'328, 4.5},
                        {14, "Q6_K", 33, 1'531'969'536, 1'256'693'760, 6.5625},
                        {0, "F32", 66, 266'304, 1'065'216, 32.0}};
    for (const Row& r : want) {
        ASSERT_TRUE(q.executeStep());
        EXPECT_EQ(q.getColumn(0).getInt(), r.type_id);
        EXPECT_EQ(q.getColumn(1).getString(), r.name);
        EXPECT_EQ(q.getColumn(2).getInt(), r.tensors);
        EXPECT_EQ(q.getColumn(3).getInt64(), r.params);
        EXPECT_EQ(q.getColumn(4).getInt64(), r.bytes);
        EXPECT_DOUBLE_EQ(q.getColumn(5).getDouble(), r.bpw);
    }
    EXPECT_FALSE(q.executeStep());
    // the per-type byte sums are the file minus its header, to the byte
    EXPECT_EQ(db.execAndGet("SELECT sum(bytes) FROM type_census c JOIN models m USING (model_id) WHERE m.format = 'gguf'")
                  .getInt64(),
              db.execAndGet("SELECT file_bytes - header_bytes FROM models WHERE format = 'gguf'").getInt64());
}

TEST_F(CatalogEndToEnd, TensorRowsCarryLayerKindAndMeasuredSizes) {
    SQLite::Database db(db_.string());
    SQLite::Statement q(db,
                        "SELECT layer, kind, dims, n_elements, type_name, bytes, expected_bytes, bits_per_weight"
                        " FROM tensors WHERE name = 'blk.31.ffn_down.weight'");
    ASSERT_TRUE(q.executeStep());
    EXPECT_EQ(q.getColumn(0).getInt(), 31);
    EXPECT_EQ(q.getColumn(1).getString(), "ffn_down.weight");
    EXPECT_EQ(q.getColumn(2).getString(), "[14336,4096]");
    EXPECT_EQ(q.getColumn(3).getInt64(), 58'720'256);
    EXPECT_EQ(q.getColumn(4).getString(), "Q6_K");
    EXPECT_EQ(q.getColumn(5).getInt64(), 48'168'960);
    EXPECT_EQ(q.getColumn(6).getInt64(), 48'168'960);
    EXPECT_DOUBLE_EQ(q.getColumn(7).getDouble(), 6.5625);
    EXPECT_EQ(db.execAndGet("SELECT layer IS NULL AND kind = name FROM tensors WHERE name = 'output.weight'").getInt(), 1);
    // the tokenizer is stored as length + byte size + hash, not row by row
    SQLite::Statement tok(db, "SELECT value IS NULL, array_length, array_type, length(array_hash) FROM metadata"
                              " WHERE key = 'tokenizer.ggml.merges'");
    ASSERT_TRUE(tok.executeStep());
    EXPECT_EQ(tok.getColumn(0).getInt(), 1);
    EXPECT_EQ(tok.getColumn(1).getInt(), 280'147);
    EXPECT_EQ(tok.getColumn(2).getString(), "string");
    EXPECT_EQ(tok.getColumn(3).getInt(), 16);
}

TEST_F(CatalogEndToEnd, RecrawlReplacesRowsAndKeepsIds) {
    SQLite::Database before(db_.string());
    int64_t id = before.execAndGet("SELECT model_id FROM models WHERE format = 'gguf'").getInt64();
    test::CommandResult again = test::run_modelcat("crawl --force --db " + db_.string() + " " + q4km_.string());
    EXPECT_EQ(again.exit_code, 0) << again.err;
    SQLite::Database db(db_.string());
    EXPECT_EQ(db.execAndGet("SELECT model_id FROM models WHERE format = 'gguf'").getInt64(), id);
    EXPECT_EQ(db.execAndGet("SELECT count(*) FROM models").getInt(), 2);
    EXPECT_EQ(db.execAndGet("SELECT count(*) FROM tensors WHERE model_id = " + std::to_string(id)).getInt(), 292);
    EXPECT_EQ(db.execAndGet("SELECT count(*) FROM census WHERE model_id = " + std::to_string(id)).getInt(), 3);
    EXPECT_EQ(db.execAndGet("SELECT count(*) FROM files").getInt(), 2);
    EXPECT_EQ(db.execAndGet("SELECT max(crawl_id) FROM files").getInt(), 2);
    EXPECT_EQ(db.execAndGet("PRAGMA integrity_check").getString(), "ok");
}

TEST_F(CatalogEndToEnd, QueryFormats) {
    std::string base = "query quant_summary --db " + db_.string() + " --param pattern=%Q4_K_M ";
    test::CommandResult csv = test::run_modelcat(base + "--format csv");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_NE(csv.out.find("name,format,kind,architecture,file_type,file_type_name,file_bytes,gib,params,bits_per_weight"), std::string::npos);
    EXPECT_NE(csv.out.find("Meta-Llama-3.1-8B-Instruct-Q4_K_M,gguf,model,llama,15,MOSTLY_Q4_K_M,4920739232,4.58,8030261312,4.8944,292,33,12:193 14:33 0:66"),
              std::string::npos)
        << csv.out;
    test::CommandResult json = test::run_modelcat(base + "--format json");
    EXPECT_NE(json.out.find("\"census\": \"12:193 14:33 0:66\""), std::string::npos) << json.out;
    EXPECT_NE(json.out.find("\"file_bytes\": 4920739232"), std::string::npos) << json.out;
    test::CommandResult md = test::run_modelcat(base + "--format markdown");
    EXPECT_NE(md.out.find("| Meta-Llama-3.1-8B-Instruct-Q4_K_M | gguf"), std::string::npos) << md.out;
    test::CommandResult table = test::run_modelcat(base);
    EXPECT_NE(table.out.find("12:193 14:33 0:66"), std::string::npos) << table.out;
    EXPECT_EQ(test::run_modelcat("query no_such_report --db " + db_.string()).exit_code, 2);
    EXPECT_EQ(test::run_modelcat(base + "--param typo=1").exit_code, 2);
}

TEST_F(CatalogEndToEnd, ShowPrintsOneHeaderWithoutADatabase) {
    test::CommandResult r = test::run_modelcat("show " + q4km_.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("GGUF version 3, little-endian, alignment 32"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("header 7840928 bytes"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("292 tensors, 8030261312 parameters, 4.8944 bits per weight overall"), std::string::npos) << r.out;
    test::CommandResult bad = test::run_modelcat("show " + (store_ / "broken.gguf").string());
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.err.find("offset 0: not a GGUF file"), std::string::npos);
}

}  // namespace

namespace {

// A batch of hostile files crawled under an address-space limit: only the
// hostile files fail, each with a reason, and the good ones are catalogued.
TEST(HostileBatch, OnlyTheHostileFilesFailUnderAMemoryLimit) {
    if (test::sanitized()) GTEST_SKIP() << "ASan reserves terabytes of address space; ulimit -v cannot apply";
    test::TempDir tmp;
    fs::path d = tmp / "batch";
    fs::create_directories(d);
    auto put_u64 = [](std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); };
    auto write = [&](const std::string& name, const std::vector<uint8_t>& b) {
        std::ofstream(d / name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    };
    {  // string length 2^63
        kit::GgufWriter w;
        w.add_kv("general.name", kit::GgufValue::str("x"));
        auto b = w.header();
        put_u64(b, w.kv_offset(0) + 8 + 12 + 4, 1ull << 63);
        write("string-bomb.gguf", b);
    }
    {  // array count 2^62
        kit::GgufWriter w;
        w.add_kv("tokenizer.ggml.tokens", kit::GgufValue::string_array({"a"}));
        auto b = w.header();
        put_u64(b, w.kv_offset(0) + 8 + 21 + 4 + 4, 1ull << 62);
        write("array-bomb.gguf", b);
    }
    {  // a billion tensors declared
        kit::GgufWriter w;
        w.override_tensor_count(1'000'000'000);
        write("tensor-count.gguf", w.header());
    }
    {  // arrays nested 1000 deep
        kit::GgufValue v = kit::GgufValue::array(kit::GgufType::u8, {});
        for (int i = 0; i < 1000; ++i) v = kit::GgufValue::array(kit::GgufType::array, {v});
        kit::GgufWriter w;
        w.add_kv("deep", v);
        write("deep.gguf", w.header());
    }
    {  // safetensors claiming a 2^64-1 byte header, and one claiming 99 MB in a small file
        std::vector<uint8_t> b(16, ' ');
        put_u64(b, 0, ~0ull);
        write("length-bomb.safetensors", b);
        put_u64(b, 0, 99'000'000);
        write("length-past-end.safetensors", b);
    }
    kit::llama31_quant("Q4_K_M").write(d / "good.gguf");
    fs::copy_file(test::fixtures_dir() / "minicpm3-4b-testdata.safetensors", d / "good.safetensors");

    test::CommandResult r = test::run_modelcat("crawl --quiet --json-summary --db " + (tmp / "c.db").string() + " " + d.string(),
                                               "ulimit -v 1048576;");  // 1 GiB of address space
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.out.find("\"files_ok\": 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"files_failed\": 6"), std::string::npos) << r.out;
    for (const char* bad : {"string-bomb.gguf", "array-bomb.gguf", "tensor-count.gguf", "deep.gguf",
                            "length-bomb.safetensors", "length-past-end.safetensors"})
        EXPECT_NE(r.err.find("error: " + (d / bad).string() + ": offset "), std::string::npos) << bad << "\n" << r.err;
}

}  // namespace

namespace {

// A database error (here a user's unique index refusing one model's tensors, as a full
// disk or an I/O error would refuse a write) is not that model's failure: the
// crawl stops with exit 2 and the catalogue keeps every model committed before.
TEST(DatabaseErrors, StopTheCrawlWithExitTwoAndLeaveTheCatalogueIntact) {
    test::TempDir tmp;
    fs::path store = tmp / "store", db = tmp / "catalog.db";
    fs::create_directories(store);
    kit::llama31_quant("Q4_K_M").write(store / "a.gguf");
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db " + db.string() + " " + (store / "a.gguf").string()).exit_code, 0);
    kit::llama31_quant("Q8_0").write(store / "b.gguf");
    {
        SQLite::Database d(db.string(), SQLite::OPEN_READWRITE);
        // tensors is a view since schema 18: the index is on the rows it reads; a's output.weight is the one row it allows
        const int64_t output = d.execAndGet("SELECT name_id FROM tensor_names WHERE name = 'output.weight'").getInt64();
        d.exec("CREATE UNIQUE INDEX refuse ON tensor_rows(name_id) WHERE name_id = " + std::to_string(output));
    }
    test::CommandResult r = test::run_modelcat("crawl --db " + db.string() + " " + store.string());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("modelcat: database " + db.string() + ": UNIQUE constraint failed: tensor_rows.name_id"), std::string::npos) << r.err;
    SQLite::Database d(db.string());
    EXPECT_EQ(d.execAndGet("PRAGMA integrity_check").getString(), "ok");
    EXPECT_EQ(d.execAndGet("SELECT group_concat(name) FROM models").getString(), "a");
    EXPECT_EQ(d.execAndGet("SELECT count(*) FROM tensors").getInt(), 292);
    EXPECT_EQ(d.execAndGet("SELECT count(*) FROM errors").getInt(), 0);  // not recorded as a bad file
    EXPECT_TRUE(d.execAndGet("SELECT finished_at FROM crawls ORDER BY crawl_id DESC LIMIT 1").isNull());
}

}  // namespace
