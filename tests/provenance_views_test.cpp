// Views a user asks for beside the policies, through the binary: the memory a
// model needs, where a quant came from, and re-uploads of the same weights.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "kit/kinds.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

class ProvenanceViews : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(store_ / "re-upload");
        kit::tiny_llama("tiny", 8, "{{ first }}").write(store_ / "tiny-Q8_0.gguf");
        kit::tiny_llama("tiny", 8, "{{ second }}").write(store_ / "re-upload" / "tiny-Q8_0.gguf");  // re-templated
        kit::tiny_llama("tiny", 8, "{{ first }}").write(store_ / "copy-Q8_0.gguf");  // the same metadata: not a re-upload
        kit::GgufWriter q = kit::tiny_llama("tiny", 12);
        q.add_kv("quantize.imatrix.file", kit::GgufValue::str("/models/tiny.imatrix"));
        q.add_kv("quantize.imatrix.dataset", kit::GgufValue::str("calibration_datav3.txt"));
        q.add_kv("quantize.imatrix.entries_count", kit::GgufValue::i32(14));
        q.add_kv("quantize.imatrix.chunks_count", kit::GgufValue::i32(125));
        q.write(store_ / "tiny-Q4_K_M.gguf");
        kit::tiny_mmproj().write(store_ / "mmproj-tiny.gguf");
        test::CommandResult r = test::run_modelcat("crawl -q --db " + db_.string() + " " + store_.string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    test::TempDir tmp_;
    fs::path store_ = tmp_ / "store", db_ = tmp_ / "catalog.db";
};

TEST_F(ProvenanceViews, ModelMemoryGivesTensorBytesAndTheKvCachePer1kTokens) {
    // 2 layers x 2 kv heads x (64 + 64) x 2 bytes x 1,024 tokens
    EXPECT_EQ(test::sql_value(db_, "SELECT kv_bytes_per_1k_tokens || ' ' || kv_full_bytes_per_1k || ' ' || kv_swa_bytes_per_1k FROM model_memory"
                  " WHERE name = 'tiny-Q4_K_M'"),
              "1048576 1048576 0");
    EXPECT_EQ(test::sql_value(db_, "SELECT tensor_bytes = (SELECT sum(bytes) FROM tensors t WHERE t.model_id = model_memory.model_id)"
                  " FROM model_memory WHERE name = 'tiny-Q4_K_M'"),
              "1");
    EXPECT_EQ(test::sql_value(db_, "SELECT coalesce(kv_bytes_per_1k_tokens, 'none') FROM model_memory WHERE name = 'mmproj-tiny'"), "none");
}

TEST_F(ProvenanceViews, QuantProvenanceHoldsTheImatrixKeysAsStored) {
    EXPECT_EQ(test::sql_value(db_, "SELECT imatrix_file || ' ' || imatrix_dataset || ' ' || imatrix_entries || ' ' || typeof(imatrix_chunks)"
                  " FROM quant_provenance WHERE name = 'tiny-Q4_K_M'"),
              "/models/tiny.imatrix calibration_datav3.txt 14 integer");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(DISTINCT chat_template_hash) FROM quant_provenance WHERE name LIKE '%Q8_0'"), "2");
}

TEST_F(ProvenanceViews, SameWeightsDifferentMetadataListsTheReTemplatedUpload) {
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM same_weights_different_metadata"), "1");
    EXPECT_EQ(test::sql_value(db_, "SELECT files || ' ' || metadata_variants FROM same_weights_different_metadata"), "3 2");
    EXPECT_EQ(test::sql_value(db_, "SELECT locations FROM same_weights_different_metadata"),
              (store_ / "copy-Q8_0.gguf").string() + "\n" + (store_ / "re-upload" / "tiny-Q8_0.gguf").string() + "\n" +
                  (store_ / "tiny-Q8_0.gguf").string());
}

}  // namespace
