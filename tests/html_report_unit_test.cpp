// The HTML report's parts without a browser: escaping, the palette, the
// same-file_type comparison and its summary line, and the selection cap.
#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "catalog/writer.hpp"
#include "crawl/crawler.hpp"
#include "model/census.hpp"
#include "model/utf8.hpp"
#include "report/html_report.hpp"
#include "report/html_table.hpp"
#include "report/html_text.hpp"
#include "report/policy_compare.hpp"
#include "support.hpp"

using namespace modelcat;

namespace {

catalog::ReportTensor tensor(const std::string& kind, std::optional<int64_t> layer, const std::string& type) {
    catalog::ReportTensor t;
    t.kind = kind;
    t.layer = layer;
    t.name = layer ? "blk." + std::to_string(*layer) + "." + kind : kind;
    t.type = type;
    return t;
}

TEST(HtmlEscape, MarkupQuotesAndInvalidUtf8) {
    EXPECT_EQ(report::html_escape("<img src=x onerror=\"a('1')\">&amp;"),
              "&lt;img src=x onerror=&quot;a(&#39;1&#39;)&quot;&gt;&amp;amp;");
    EXPECT_EQ(report::html_escape("caf\xC3\xA9 \xE2\x9C\x93"), "caf\xC3\xA9 \xE2\x9C\x93");  // valid UTF-8 kept
    EXPECT_EQ(report::html_escape("a\xFF" "b\xC3"), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");   // invalid: U+FFFD
}

TEST(HtmlPalette, EveryGgmlTypeHasItsOwnColour) {
    test::TempDir dir;
    { catalog::Writer cat((dir / "c.db").string()); }
    SQLite::Database db((dir / "c.db").string(), SQLite::OPEN_READONLY);
    catalog::ReportData data = catalog::load_report_data(db, {});
    ASSERT_GE(data.ggml_types.size(), 35u);
    std::set<std::string> colours;
    for (const auto& t : data.ggml_types) {
        std::string c = report::type_colour(data.ggml_types, t.name);
        EXPECT_EQ(c.size(), 7u) << t.name;
        EXPECT_TRUE(colours.insert(c).second) << t.name << " shares " << c;
    }
    for (size_t i = 1; i < data.ggml_types.size(); ++i)  // the palette order: bits per weight
        EXPECT_LE(data.ggml_types[i - 1].bits_per_weight, data.ggml_types[i].bits_per_weight);
    EXPECT_EQ(report::type_colour(data.ggml_types, "F8_E4M3"), "#9a9a9a");  // not a ggml type: grey
}

TEST(PolicyCompare, SummaryGroupsByNewTypeWithLayerRanges) {
    catalog::ReportModel base, other;
    base.name = "Org-Model-Q4_K_M";
    other.name = "Org-Model-Q4_K_L";
    for (int64_t l = 0; l < 6; ++l) base.tensors.push_back(tensor("ffn_down.weight", l, "Q4_K"));
    base.tensors.push_back(tensor("token_embd.weight", std::nullopt, "Q4_K"));
    base.tensors.push_back(tensor("output.weight", std::nullopt, "Q6_K"));
    base.tensors.push_back(tensor("rope_freqs.weight", std::nullopt, "F32"));
    other.tensors.push_back(tensor("token_embd.weight", std::nullopt, "Q8_0"));
    for (int64_t l = 0; l < 6; ++l) other.tensors.push_back(tensor("ffn_down.weight", l, l < 3 || l == 5 ? "Q6_K" : "Q4_K"));
    other.tensors.push_back(tensor("output.weight", std::nullopt, "Q8_0"));
    std::vector<const catalog::ReportModel*> both{&base, &other};
    auto names = report::short_names(both);
    EXPECT_EQ(names, (std::vector<std::string>{"Q4_K_M", "Q4_K_L"}));
    EXPECT_EQ(report::policy_summary(base, names[0], other, names[1]),
              "Q4_K_L = Q4_K_M + token_embd, output as Q8_0; ffn_down in layers 0-2,5 as Q6_K − rope_freqs");
    EXPECT_EQ(report::differing_tensors(both),
              (std::set<std::string>{"blk.0.ffn_down.weight", "blk.1.ffn_down.weight", "blk.2.ffn_down.weight",
                                     "blk.5.ffn_down.weight", "output.weight", "rope_freqs.weight", "token_embd.weight"}));
    EXPECT_EQ(report::policy_summary(base, "A", base, "B"), "B = A");
}

// Layers a crafted catalogue holds at the int64 ends (twice the largest: two names, one layer) make
// ranges without overflowing (the sanitized suite stops at a signed overflow).
TEST(PolicyCompare, LayerRangesAtTheInt64Ends) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
    catalog::ReportModel base, other;
    for (int64_t l : {kMin, kMin + 1, kMax, kMax}) {
        base.tensors.push_back(tensor("ffn_down.weight", l, "Q4_K"));
        base.tensors.back().name += std::to_string(base.tensors.size());
        other.tensors.push_back(base.tensors.back());
        other.tensors.back().type = "Q6_K";
    }
    EXPECT_EQ(report::policy_summary(base, "A", other, "B"),
              "B = A + ffn_down in layers -9223372036854775808,-9223372036854775807,9223372036854775807,9223372036854775807 as Q6_K");
}

TEST(PolicyCompare, RecipeSummaryUsesTheRecipesWords) {
    catalog::ReportModel m;
    EXPECT_EQ(report::recipe_summary(m, "Q4_K_M"), "");  // no recipes row: not read since the migration
    m.recipe = m.recipe_why = "stock";
    EXPECT_EQ(report::recipe_summary(m, "Q4_K_M"), "Q4_K_M: stock");
    m.recipe = "stock+overrides";
    m.recipe_why = "output: Q6_K\u2192Q4_K (--pure)";
    EXPECT_EQ(report::recipe_summary(m, "pure"), "pure: stock+overrides \u2014 output: Q6_K\u2192Q4_K (--pure)");
    m.recipe = m.recipe_why = "unknown";
    EXPECT_EQ(report::recipe_summary(m, "x"), "");  // the group falls back to comparing the policies
}

TEST(PolicyCompare, ShortNamesKeepWholeWords) {
    catalog::ReportModel a, b;
    a.name = "alpha-7b";
    b.name = "beta-7b";
    EXPECT_EQ(report::short_names({&a, &b}), (std::vector<std::string>{"alpha-7b", "beta-7b"}));
    b.name = "alpha-7b.Q8_0";  // cut at the last separator inside the common part
    EXPECT_EQ(report::short_names({&a, &b}), (std::vector<std::string>{"7b", "7b.Q8_0"}));
    a.name = "model";
    b.name = "model-Q8_0";
    EXPECT_EQ(report::short_names({&a, &b}), (std::vector<std::string>{"model", "model-Q8_0"}));
}

TEST(HtmlReportSelection, LargerSelectionsAskForAPattern) {
    test::TempDir dir;
    {
        catalog::Writer cat((dir / "c.db").string());
        crawl::run_crawl(cat, {(test::fixtures_dir() / "llama-2-tiny-random.gguf").string(),
                               (test::fixtures_dir() / "iree-single-v3.gguf").string(),
                               (test::fixtures_dir() / "gguf-py-little-endian-v3.gguf").string()}, {});
    }
    SQLite::Database db((dir / "c.db").string(), SQLite::OPEN_READONLY);
    try {
        catalog::load_report_data(db, {std::nullopt, {}, 2});
        FAIL() << "three models passed a cap of two";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "3 models selected; an HTML report shows at most 2 (narrow it with --pattern or --model)");
    }
    catalog::ReportData data = catalog::load_report_data(db, {"llama%", {}, 2});
    ASSERT_EQ(data.models.size(), 1u);
    EXPECT_EQ(data.models[0].name, "llama-2-tiny-random");
    EXPECT_EQ(static_cast<int64_t>(data.models[0].tensors.size()),
              db.execAndGet("SELECT tensor_count FROM models WHERE name = 'llama-2-tiny-random'").getInt64());
}

}  // namespace

TEST(HtmlText, ElideMiddleKeepsWholeCharactersAtBothEnds) {
    EXPECT_EQ(model::elide_middle("Meta-Llama-3.1-8B-Instruct-Q4_K_M", 24), "Meta-Llama-\u2026truct-Q4_K_M");
    EXPECT_EQ(model::utf8_length(model::elide_middle("Meta-Llama-3.1-8B-Instruct-Q4_K_M", 24)), 24u);
    EXPECT_EQ(model::elide_middle("Meta-Llama-3.1-8B-Instruct-Q4_K_M", 20, 5), "Meta-\u2026nstruct-Q4_K_M");
    EXPECT_EQ(model::elide_middle("short", 20), "short");
    EXPECT_EQ(model::elide_middle("\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9", 5), "\u00e9\u00e9\u2026\u00e9\u00e9");  // never half a character
}

TEST(HtmlTable, LocationsShowTheFoldersThatDiffer) {
    auto at = [](std::vector<std::string> locations) {
        std::vector<catalog::ReportModel> models;
        for (auto& l : locations) {
            models.emplace_back();
            models.back().location = l;
        }
        return report::location_labels(models);
    };
    EXPECT_EQ(at({"/m/bartowski/L-GGUF/x-Q6_K.gguf", "/m/unsloth/L-GGUF/x-Q6_K.gguf", "/m/x-Q6_K.gguf"}),
              (std::vector<std::string>{"bartowski/L-GGUF", "unsloth/L-GGUF", "m"}));
    EXPECT_EQ(at({"/srv/lineup/a.gguf", "/srv/lineup/b.gguf"}), (std::vector<std::string>{"lineup", "lineup"}));
    EXPECT_EQ(at({"/m/ab/x.gguf", "/m/ac/x.gguf"}), (std::vector<std::string>{"ab", "ac"}));  // whole folder names
    EXPECT_EQ(at({"/m/" + std::string(60, 'a') + "/x.gguf", "/m/b/x.gguf"})[0], std::string(19, 'a') + "\u2026" + std::string(20, 'a'));
}

TEST(HtmlTable, CensusInTypeNamesFromTheGgmlTable) {
    EXPECT_EQ(model::census_with_names("12:193 14:33 0:66"), "Q4_K:193 Q6_K:33 F32:66");
    EXPECT_EQ(model::census_with_names("BF16:291"), "BF16:291");  // safetensors dtypes as stored
    EXPECT_EQ(model::census_with_names("999:2 8:1"), "type_999:2 Q8_0:1");
    EXPECT_EQ(model::census_with_names(""), "");
}
