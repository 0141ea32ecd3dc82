// The crawl remembers recipe rows by what inferring them reads (crawl/recipe_memo.hpp): the inputs
// tell apart what changes a recipe and nothing else, and a remembered row is the row a fresh
// inference writes.
#include <gtest/gtest.h>

#include "crawl/recipe_memo.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/llama31.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufValue;
namespace fs = std::filesystem;

namespace {

model::FileHeader header_of(kit::GgufWriter w) { return kit::parse_header(w); }

TEST(RecipeInputs, ChangeWithWhatARecipeReadsOnly) {
    const std::string base = crawl::recipe_inputs(header_of(kit::llama31_quant("Q4_K_L")));
    kit::GgufWriter renamed = kit::llama31_quant("Q4_K_L");
    renamed.add_kv("general.description", GgufValue::str("another upload"));
    EXPECT_EQ(crawl::recipe_inputs(header_of(renamed)), base);
    kit::GgufWriter experts = kit::llama31_quant("Q4_K_L");
    experts.add_kv("llama.expert_count", GgufValue::u32(8));
    EXPECT_NE(crawl::recipe_inputs(header_of(experts)), base);
    // An importance matrix: whether there is one (the quant has one), not which (its path, its dataset).
    kit::GgufWriter sampled = kit::llama31_quant("Q4_K_L");
    sampled.add_kv("quantize.imatrix.note", GgufValue::str("another upload's"));
    EXPECT_EQ(crawl::recipe_inputs(header_of(sampled)), base);
    const std::string bf16 = crawl::recipe_inputs(header_of(kit::llama31_bf16_gguf()));
    kit::GgufWriter bf16_sampled = kit::llama31_bf16_gguf();
    bf16_sampled.add_kv("quantize.imatrix.file", GgufValue::str("/another/upload/imatrix.dat"));
    EXPECT_NE(crawl::recipe_inputs(header_of(bf16_sampled)), bf16);
    EXPECT_NE(crawl::recipe_inputs(header_of(kit::llama31_quant("Q4_K_M"))), base);  // tensor types
}

// Two uploads that differ only in a description and their importance matrix's keys: the second row comes
// from memory, equal to what a crawl of that file alone (a fresh process) infers.
TEST(RecipeInputs, ARememberedRowIsTheInferredRow) {
    test::TempDir tmp;
    fs::create_directories(tmp / "both");
    fs::create_directories(tmp / "alone");
    kit::llama31_quant("Q4_K_L").write(tmp / "both" / "a.gguf");
    kit::GgufWriter other = kit::llama31_quant("Q4_K_L");
    other.add_kv("general.description", GgufValue::str("another upload"));
    other.add_kv("quantize.imatrix.note", GgufValue::str("its own importance matrix"));
    other.write(tmp / "both" / "b.gguf");
    other.write(tmp / "alone" / "b.gguf");
    for (const char* dir : {"both", "alone"})
        ASSERT_EQ(test::run_modelcat("crawl -q --db " + (tmp / (std::string(dir) + ".db")).string() + " " + (tmp / dir).string()).exit_code, 0);
    const std::string row = "SELECT r.recipe || '|' || r.quantized_as || '|' || r.overrides || '|' || r.matching || '|' || r.tensors || '|' ||"
                            " r.revision || '|' || r.imatrix || '|' || r.differences || '|' || r.why || '|' || r.note"
                            " FROM recipes r JOIN models m USING (model_id) WHERE m.name = ";
    const std::string remembered = test::sql_value(tmp / "both.db", row + "'b'");
    EXPECT_EQ(remembered, test::sql_value(tmp / "both.db", row + "'a'"));
    EXPECT_EQ(remembered, test::sql_value(tmp / "alone.db", row + "'b'"));
    EXPECT_NE(remembered.find("stock+overrides|"), std::string::npos) << remembered;
}

}  // namespace
