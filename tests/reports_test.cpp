// The catalogue answers the questions users bring: the quant table, policies,
// same file_type with different policies, measured type rates, multi-file
// models, the GGUF <-> safetensors reconciliation and the recipes, each as one query.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "catalog/query.hpp"
#include "catalog/writer.hpp"
#include "crawl/crawler.hpp"
#include "kit/llama31.hpp"
#include "quantize_runs.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

std::string text(const catalog::Cell& c) {
    if (auto* s = std::get_if<std::string>(&c)) return *s;
    if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
    if (auto* d = std::get_if<double>(&c)) return std::to_string(*d);
    return "NULL";
}

// A catalogue crawled once per suite (each suite its own: the base is per Suite), its reports and SQL.
template <typename Suite>
class CrawledCatalogue : public ::testing::Test {
protected:
    static void crawl_into_catalogue(const std::vector<std::string>& inputs) {
        catalog_ = new catalog::Writer((dir_->path() / "catalog.db").string());
        report_ = crawl::run_crawl(*catalog_, inputs, {});
    }
    static void TearDownTestSuite() {
        delete catalog_;
        delete dir_;
    }
    static catalog::QueryResult query(const std::string& name, const std::map<std::string, std::string>& params = {}) {
        const std::string sql = *catalog::bundled_query(name);
        return catalog_->reader().run_query(sql, catalog_->reader().resolve_report_params(name, sql, params));
    }
    static catalog::QueryResult sql(const std::string& s) { return catalog_->reader().run_query(s, {}); }
    static inline test::TempDir* dir_;
    static inline catalog::Writer* catalog_;
    static inline crawl::CrawlReport report_;
};

class Llama31Lineup : public CrawledCatalogue<Llama31Lineup> {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        kit::write_llama31_store(dir_->path());
        crawl_into_catalogue({(dir_->path() / "lineup").string(), (dir_->path() / "source").string()});
    }
};

TEST_F(Llama31Lineup, EverythingIsCataloguedAsTenModels) {
    EXPECT_TRUE(report_.failures.empty());
    EXPECT_EQ(text(sql("SELECT count(*) FROM models").rows[0][0]), "10");  // 8 quants, the BF16 GGUF, the checkpoint
}

TEST_F(Llama31Lineup, QuantTableReproducesTheMeasuredFiles) {
    // as measured on the real files: bits/weight to 4 decimals, GiB, file_type and census
    const std::map<std::string, std::string> want = {
        {"IQ2_M", "2948285856|2.75|29|2.9294|22:156 21:37 13:1 12:32 0:66"},
        {"Q2_K", "3179136416|2.96|10|3.1593|10:129 11:64 14:1 12:32 0:66"},
        {"Q3_K_M", "4018922912|3.74|12|3.9960|11:129 12:92 14:1 13:4 0:66"},
        {"Q4_K_S", "4692673952|4.37|14|4.6672|12:217 14:1 13:8 0:66"},
        {"Q4_K_M", "4920739232|4.58|15|4.8944|12:193 14:33 0:66"},
        {"Q4_K_L", "5310637472|4.95|15|5.2828|12:192 8:2 14:32 0:66"},
        {"Q6_K", "6596011424|6.14|18|6.5633|14:226 0:66"},
        {"Q8_0", "8540775840|7.95|7|8.5008|8:226 0:66"},
    };
    catalog::QueryResult r = query("quants", {{"pattern", "Meta-Llama-3.1-8B-Instruct-%"}});
    std::map<std::string, std::string> got;
    for (const auto& row : r.rows) {
        std::string name = text(row[0]).substr(std::string("Meta-Llama-3.1-8B-Instruct-").size());
        char gib[16], bpw[16];
        std::snprintf(gib, sizeof gib, "%.2f", std::get<double>(row[2]));
        std::snprintf(bpw, sizeof bpw, "%.4f", std::get<double>(row[6]));
        EXPECT_EQ(text(row[5]), "8030261312") << name;
        got[name] = text(row[1]) + "|" + gib + "|" + text(row[3]) + "|" + bpw + "|" + text(row[7]);
    }
    for (const auto& [q, line] : want) EXPECT_EQ(got[q], line) << q;
}

TEST_F(Llama31Lineup, PolicyDeviationsGiveTheMeasuredLayerLists) {
    const std::string layers16 = "0,1,2,3,6,10,13,16,19,21,24,27,28,29,30,31";
    auto rows = [&](const std::string& quant) {
        std::vector<std::string> out;
        for (const auto& r : query("policy", {{"model", "Meta-Llama-3.1-8B-Instruct-" + quant}}).rows)
            out.push_back(text(r[0]) + " " + text(r[2]) + " " + text(r[3]) + " " + text(r[4]) + " " + text(r[5]));
        return out;
    };
    EXPECT_EQ(rows("Q4_K_S"), (std::vector<std::string>{"Q4_K Q5_K attn_v.weight 4 0,1,2,3", "Q4_K Q5_K ffn_down.weight 4 0,1,2,3",
                                                       "Q4_K Q6_K output.weight 1 NULL"}));
    EXPECT_EQ(rows("Q4_K_M"), (std::vector<std::string>{"Q4_K Q6_K attn_v.weight 16 " + layers16,
                                                       "Q4_K Q6_K ffn_down.weight 16 " + layers16,
                                                       "Q4_K Q6_K output.weight 1 NULL"}));
    EXPECT_EQ(rows("Q4_K_L"), (std::vector<std::string>{"Q4_K Q8_0 output.weight 1 NULL", "Q4_K Q8_0 token_embd.weight 1 NULL",
                                                       "Q4_K Q6_K attn_v.weight 16 " + layers16,
                                                       "Q4_K Q6_K ffn_down.weight 16 " + layers16}));
}

TEST_F(Llama31Lineup, SameFileTypeDifferentPolicyFindsQ4KMAndQ4KL) {
    catalog::QueryResult r = sql("SELECT * FROM same_file_type_different_policy");
    EXPECT_EQ(r.columns, (std::vector<std::string>{"architecture", "file_type", "file_type_name", "models", "policies",
                                                   "model_ids", "names", "why"}));
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(text(r.rows[0][0]), "llama");
    EXPECT_EQ(text(r.rows[0][1]), "15");
    EXPECT_EQ(text(r.rows[0][2]), "MOSTLY_Q4_K_M");
    EXPECT_EQ(text(r.rows[0][3]), "2");
    EXPECT_EQ(text(r.rows[0][4]), "2");
    std::string names = text(r.rows[0][6]);
    EXPECT_NE(names.find("Meta-Llama-3.1-8B-Instruct-Q4_K_M"), std::string::npos);
    EXPECT_NE(names.find("Meta-Llama-3.1-8B-Instruct-Q4_K_L"), std::string::npos);
    EXPECT_EQ(text(r.rows[0][7]), "Meta-Llama-3.1-8B-Instruct-Q4_K_L: token_embd: Q4_K\u2192Q8_0; output: Q6_K\u2192Q8_0 "
                                  "(--token-embedding-type q8_0 --output-tensor-type q8_0)");
    // the two differ in policy_hash but agree in everything the header declares
    EXPECT_EQ(text(sql("SELECT count(DISTINCT policy_hash) FROM models WHERE file_type = 15").rows[0][0]), "2");
}

TEST_F(Llama31Lineup, RecipesNameTheEightQuants) {
    const catalog::QueryResult r = query("recipes");
    EXPECT_EQ(r.columns, (std::vector<std::string>{"model_id", "name", "location", "declared_type", "recipe", "overrides",
                                                   "matching", "tensors", "revision", "quantized_as"}));
    std::vector<std::string> got;
    for (const auto& row : r.rows) {
        const std::string name = text(row[1]);
        if (!name.starts_with("Meta-Llama-3.1-8B-Instruct-")) continue;
        got.push_back(name.substr(27) + " " + text(row[3]) + " " + text(row[4]) + " [" + text(row[5]) + "] " +
                      (text(row[6]) == text(row[7]) ? "all" : text(row[6]) + "/" + text(row[7])) + " @" + text(row[8]));
    }
    // Made in July 2024, when llama-quantize visited tensors in file order (docs/recipes.md).
    EXPECT_EQ(got, (std::vector<std::string>{
                       "BF16 MOSTLY_BF16 stock [] all @34af94cd9ab2",
                       "IQ2_M MOSTLY_IQ2_M stock [] all @34af94cd9ab2",
                       "Q2_K MOSTLY_Q2_K stock [] all @34af94cd9ab2",
                       "Q3_K_M MOSTLY_Q3_K_M stock [] all @34af94cd9ab2",
                       "Q4_K_L MOSTLY_Q4_K_M stock+overrides [--token-embedding-type q8_0 --output-tensor-type q8_0] 290/292 "
                       "@34af94cd9ab2 (file order)",
                       "Q4_K_M MOSTLY_Q4_K_M stock [] all @34af94cd9ab2 (file order)",
                       "Q4_K_S MOSTLY_Q4_K_S stock [] all @34af94cd9ab2",
                       "Q6_K MOSTLY_Q6_K stock [] all @34af94cd9ab2",
                       "Q8_0 MOSTLY_Q8_0 stock [] all @34af94cd9ab2",
                   }));
}

TEST_F(Llama31Lineup, TypeRatesAreTheMeasuredRates) {
    // bits per weight measured for every distinct type id seen in the real files
    const std::map<std::string, std::string> want = {{"0", "32.0000"},  {"8", "8.5000"},  {"10", "2.6250"},
                                                     {"11", "3.4375"}, {"12", "4.5000"}, {"13", "5.5000"},
                                                     {"14", "6.5625"}, {"21", "3.4375"}, {"22", "2.5625"}};
    catalog::QueryResult r = sql("SELECT type_id, measured_bits_per_weight, table_bits_per_weight FROM type_rates"
                                 " WHERE type_id IN (0,8,10,11,12,13,14,21,22)");
    ASSERT_EQ(r.rows.size(), want.size());
    for (const auto& row : r.rows) {
        char m[16];
        std::snprintf(m, sizeof m, "%.4f", std::get<double>(row[1]));
        EXPECT_EQ(m, want.at(text(row[0]))) << text(row[0]);
        EXPECT_DOUBLE_EQ(std::get<double>(row[1]), std::get<double>(row[2]));
    }
}

TEST_F(Llama31Lineup, NamedTensorsPivotMatchesTheMeasuredFiles) {
    catalog::QueryResult r = query("named_tensors", {{"pattern", "Meta-Llama-3.1-8B-Instruct-Q%"}});
    std::map<std::string, std::string> got;
    for (const auto& row : r.rows)
        got[text(row[0])] = text(row[1]) + " " + text(row[2]) + " " + text(row[3]) + " " + text(row[4]) + " " + text(row[5]);
    EXPECT_EQ(got["Meta-Llama-3.1-8B-Instruct-Q2_K"], "10(2.63) 14(6.56) 12(4.50) 11(3.44) 10(2.63)");
    EXPECT_EQ(got["Meta-Llama-3.1-8B-Instruct-Q4_K_L"], "8(8.50) 8(8.50) 14(6.56) 14(6.56) 12(4.50)");
    EXPECT_EQ(got["Meta-Llama-3.1-8B-Instruct-Q3_K_M"], "11(3.44) 14(6.56) 13(5.50) 13(5.50) 11(3.44)");
}

TEST_F(Llama31Lineup, CheckpointIsOneModelWithItsConfig) {
    catalog::QueryResult m = sql("SELECT name, format, architecture, tensor_count, params, file_bytes, header_bytes,"
                                 " (SELECT count(*) FROM files f WHERE f.model_id = m.model_id),"
                                 " (SELECT group_concat(role) FROM (SELECT role FROM files f WHERE f.model_id = m.model_id ORDER BY file_id))"
                                 " FROM models m WHERE format = 'safetensors'");
    ASSERT_EQ(m.rows.size(), 1u);
    const auto& row = m.rows[0];
    EXPECT_EQ(text(row[0]), "Meta-Llama-3.1-8B-Instruct");
    EXPECT_EQ(text(row[2]), "llama");  // config.json model_type
    EXPECT_EQ(text(row[3]), "291");
    EXPECT_EQ(text(row[4]), "8030261248");
    EXPECT_EQ(text(row[5]), "16060556376");               // the real shards' bytes on disk
    EXPECT_EQ(text(row[6]), std::to_string(8 * 4 + 9512 + 12120 + 11656 + 560));
    EXPECT_EQ(text(row[7]), "6");
    EXPECT_EQ(text(row[8]), "data,data,data,data,index,config");
    catalog::QueryResult cfg = sql("SELECT key, value FROM metadata JOIN files USING (file_id)"
                                   " WHERE role = 'config' AND key IN ('num_hidden_layers', 'num_key_value_heads',"
                                   " 'vocab_size', 'tie_word_embeddings', 'torch_dtype') ORDER BY key");
    std::vector<std::string> got;
    for (const auto& r : cfg.rows) got.push_back(text(r[0]) + "=" + text(r[1]));
    EXPECT_EQ(got, (std::vector<std::string>{"num_hidden_layers=32", "num_key_value_heads=8", "tie_word_embeddings=0",
                                             "torch_dtype=bfloat16", "vocab_size=128256"}));
    EXPECT_EQ(text(sql("SELECT value FROM metadata WHERE key = 'total_size'").rows[0][0]), "16060522496");
}

TEST_F(Llama31Lineup, ReconcileAccountsForEveryByte) {
    catalog::QueryResult r = query("reconcile", {{"gguf", "Meta-Llama-3.1-8B-Instruct-BF16"}, {"source", "Meta-Llama-3.1-8B-Instruct"}});
    std::vector<std::string> got;
    for (const auto& row : r.rows) got.push_back(text(row[0]) + "|" + text(row[1]) + "|" + text(row[2]) + "|" + text(row[3]));
    const int64_t header_diff = 7'840'640 - (8 * 4 + 9512 + 12120 + 11656 + 560);
    EXPECT_EQ(got, (std::vector<std::string>{
                       "dtype BF16 -> F32|65|266240|532480",  // 65 norms, 4096 values each, 2 -> 4 bytes
                       "unchanged BF16|226|8029995008|0",
                       "only in gguf: rope_freqs.weight|1|64|256",
                       "header/metadata|NULL|NULL|" + std::to_string(header_diff),
                       "total|1|64|" + std::to_string(16'068'895'872 - 16'060'556'376)}));
    int64_t sum = 0;  // the cause rows add up to the total row
    for (size_t i = 0; i + 1 < r.rows.size(); ++i) sum += std::get<int64_t>(r.rows[i][3]);
    EXPECT_EQ(sum, std::get<int64_t>(r.rows.back()[3]));
}

TEST_F(Llama31Lineup, DiffOfTwoCataloguedModels) {
    catalog::QueryResult r = query("diff", {{"a", "Meta-Llama-3.1-8B-Instruct-Q4_K_M"}, {"b", "Meta-Llama-3.1-8B-Instruct-Q4_K_L"}});
    ASSERT_EQ(r.rows.size(), 2u);
    EXPECT_EQ(text(r.rows[0][0]), "output.weight");
    EXPECT_EQ(text(r.rows[0][1]), "type size");
    EXPECT_EQ(text(r.rows[0][2]) + ">" + text(r.rows[0][3]), "Q6_K>Q8_0");
    EXPECT_EQ(text(r.rows[1][0]), "token_embd.weight");
}

// ---- multi-file models that must fail whole ----

class MultiFile : public ::testing::Test {
protected:
    // A 3-shard split set: metadata in the first shard, which holds no tensors.
    void write_split(const fs::path& dir, unsigned count_in_header, int tensors_count, bool skip_second) {
        fs::create_directories(dir);
        for (unsigned i = 0; i < 3; ++i) {
            if (skip_second && i == 1) continue;
            kit::GgufWriter w;
            if (i == 0) w.add_kv("general.architecture", kit::GgufValue::str("llama"));
            w.add_kv("split.no", kit::GgufValue::u16(static_cast<uint16_t>(i)));
            w.add_kv("split.count", kit::GgufValue::u16(static_cast<uint16_t>(count_in_header)));
            w.add_kv("split.tensors.count", kit::GgufValue::i32(tensors_count));
            if (i > 0) {
                w.add_tensor("blk." + std::to_string(i) + ".attn_q.weight", {256, 4}, 12);
                w.add_tensor("blk." + std::to_string(i) + ".attn_norm.weight", {256}, 0);
            }
            char name[64];
            std::snprintf(name, sizeof name, "tiny-%05u-of-00003.gguf", i + 1);
            w.write(dir / name);
        }
    }
    crawl::CrawlReport crawl(const std::vector<std::string>& inputs) {
        cat_ = std::make_unique<catalog::Writer>((tmp_ / "c.db").string());
        return crawl::run_crawl(*cat_, inputs, {});
    }
    std::string one(const std::string& s) { return text(cat_->reader().run_query(s, {}).rows.at(0).at(0)); }
    test::TempDir tmp_;
    std::unique_ptr<catalog::Writer> cat_;
};

TEST_F(MultiFile, SplitGgufFromAnyShardIsOneModel) {
    write_split(tmp_ / "s", 3, 4, false);
    auto rep = crawl({(tmp_ / "s" / "tiny-00002-of-00003.gguf").string()});
    ASSERT_TRUE(rep.failures.empty()) << rep.failures[0].failure->describe();
    EXPECT_EQ(one("SELECT count(*) FROM models"), "1");
    EXPECT_EQ(one("SELECT name || ' ' || tensor_count || ' ' || location FROM models"),
              "tiny 4 " + (tmp_ / "s" / "tiny-00001-of-00003.gguf").string());
    EXPECT_EQ(one("SELECT group_concat(shard) FROM (SELECT shard FROM files ORDER BY shard)"), "0,1,2");
    EXPECT_EQ(one("SELECT census FROM quant_summary"), "12:2 0:2");
    EXPECT_EQ(one("SELECT architecture FROM models"), "llama");
}

TEST_F(MultiFile, SplitGgufWithAMissingShardIsAnErrorNotAPartialModel) {
    write_split(tmp_ / "s", 3, 4, true);
    auto rep = crawl({(tmp_ / "s").string()});
    ASSERT_EQ(rep.failures.size(), 1u);
    EXPECT_EQ(rep.failures[0].location, (tmp_ / "s" / "tiny-00002-of-00003.gguf").string());
    EXPECT_NE(rep.failures[0].failure->describe().find("model 'tiny': "), std::string::npos) << rep.failures[0].failure->describe();
    EXPECT_NE(rep.failures[0].failure->describe().find("cannot open"), std::string::npos) << rep.failures[0].failure->describe();
    EXPECT_EQ(one("SELECT count(*) FROM models"), "0");
    EXPECT_EQ(one("SELECT count(*) FROM tensors"), "0");
}

TEST_F(MultiFile, SplitGgufWithDisagreeingCountsIsAnError) {
    write_split(tmp_ / "a", 3, 5, false);
    auto rep = crawl({(tmp_ / "a").string()});
    ASSERT_EQ(rep.failures.size(), 1u);
    EXPECT_NE(rep.failures[0].failure->describe().find("split.tensors.count is 5 but the 3 shards hold 4 tensors"), std::string::npos)
        << rep.failures[0].failure->describe();
    write_split(tmp_ / "b", 4, 4, false);
    rep = crawl({(tmp_ / "b").string()});
    ASSERT_EQ(rep.failures.size(), 1u);
    EXPECT_NE(rep.failures[0].failure->describe().find("split.count is 4 but the set has 3 shards"), std::string::npos)
        << rep.failures[0].failure->describe();
    EXPECT_EQ(one("SELECT count(*) FROM models"), "0");
}

TEST_F(MultiFile, CheckpointIndexMustAgreeWithItsShards) {
    fs::path ck = tmp_ / "ck";
    fs::create_directories(ck);
    kit::SafetensorsWriter a, b;
    a.add("model.embed_tokens.weight", "BF16", {8, 4});
    b.add("lm_head.weight", "BF16", {8, 4});
    a.write(ck / "model-00001-of-00002.safetensors");
    b.write(ck / "model-00002-of-00002.safetensors");
    auto index = [&](const std::string& second, uint64_t total) {
        std::ofstream(ck / "model.safetensors.index.json")
            << R"({"metadata": {"total_size": )" << total << R"(}, "weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors", "lm_head.weight": ")"
            << second << R"("}})";
    };
    index("model-00002-of-00002.safetensors", 128);
    auto rep = crawl({ck.string()});
    ASSERT_TRUE(rep.failures.empty()) << rep.failures[0].failure->describe();
    EXPECT_EQ(one("SELECT name || ' ' || tensor_count FROM models"), "ck 2");

    index("model-00002-of-00002.safetensors", 999);
    rep = crawl({(ck / "model.safetensors.index.json").string()});
    ASSERT_EQ(rep.failures.size(), 1u);
    EXPECT_NE(rep.failures[0].failure->describe().find("metadata.total_size is 999 but the shards hold 128 bytes"), std::string::npos)
        << rep.failures[0].failure->describe();

    for (const char* escape : {"../model-00002-of-00002.safetensors", "/etc/passwd", "http://x/y.safetensors"}) {
        index(escape, 128);
        rep = crawl({ck.string()});
        ASSERT_EQ(rep.failures.size(), 1u) << escape;
        EXPECT_NE(rep.failures[0].failure->describe().find("escapes the checkpoint folder"), std::string::npos) << rep.failures[0].failure->describe();
    }
}

TEST(DiffCommand, TwoFilesWithoutADatabase) {
    test::TempDir tmp;
    kit::llama31_quant("Q4_K_S").write(tmp / "s.gguf");
    kit::llama31_quant("Q4_K_M").write(tmp / "m.gguf");
    test::CommandResult r = test::run_modelcat("diff --format csv " + (tmp / "s.gguf").string() + " " + (tmp / "m.gguf").string());
    ASSERT_EQ(r.exit_code, 1) << r.err;  // as diff(1): 1 when they differ
    // Q4_K_M promotes attn_v and ffn_down on 16 layers to Q6_K; Q4_K_S had 8 of those 32 at Q5_K (layers 0-3), 24 at Q4_K
    size_t lines = 0;
    for (char c : r.out) lines += c == '\n';
    EXPECT_EQ(lines, 1u + 32u);
    EXPECT_NE(r.out.find("blk.31.ffn_down.weight,type size,Q4_K,Q6_K"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("blk.0.attn_v.weight,type size,Q5_K,Q6_K"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(tmp / "catalog.db"));
}

// The recipes a crawl stores, against what the real llama-quantize was told: every file of
// tests/llama-quantize/ (its headers grown back to the size llama-quantize wrote, the cut-away
// tensor data a hole, so that the crawl reads them as the files they were), checked against
// results.tsv.
class RecipesCatalogue : public CrawledCatalogue<RecipesCatalogue> {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        const fs::path files = dir_->path() / "files";
        fs::create_directories(files);
        for (const test::QuantizeRun& run : test::quantize_runs()) {
            if (!run.file_size) continue;
            const fs::path to = files / (run.name + ".gguf");
            fs::copy_file(test::header_path(run), to);
            fs::permissions(to, fs::perms::owner_write, fs::perm_options::add);
            fs::resize_file(to, *run.file_size);  // the cut-away tensor data, as a hole
            runs_.emplace(to.string(), run);
        }
        crawl_into_catalogue({files.string()});
    }
    static inline std::map<std::string, test::QuantizeRun> runs_;  // by the location catalogued
};

TEST_F(RecipesCatalogue, TheReportNamesEveryFileAsResultsTsvSays) {
    ASSERT_TRUE(report_.failures.empty());
    const catalog::QueryResult r = query("recipes");
    EXPECT_EQ(r.columns, (std::vector<std::string>{"model_id", "name", "location", "declared_type", "recipe", "overrides",
                                                   "matching", "tensors", "revision", "quantized_as"}));
    ASSERT_EQ(r.rows.size(), runs_.size());
    EXPECT_EQ(r.rows.size(), 479u);
    std::map<std::string, size_t> words;
    for (const auto& row : r.rows) {
        const auto run = runs_.find(text(row[2]));
        ASSERT_NE(run, runs_.end()) << text(row[2]);
        const test::ExpectedRecipe want = test::expected_recipe(run->second);
        const std::string& name = run->second.name;
        ++words[text(row[4])];
        EXPECT_EQ(text(row[4]), want.word) << name;
        if (want.overrides) {
            EXPECT_EQ(text(row[5]), *want.overrides) << name;
        }
        EXPECT_EQ(text(row[8]), "34af94cd9ab2") << name;
        if (want.word == "stock") EXPECT_EQ(text(row[6]), text(row[7])) << name;
        else EXPECT_NE(text(row[6]), text(row[7])) << name;
        if (want.word == "relabelled") EXPECT_NE(text(row[9]), text(row[3])) << name;
        else EXPECT_EQ(text(row[9]), text(row[3])) << name;
    }
    EXPECT_EQ(words, (std::map<std::string, size_t>{{"custom", 1}, {"relabelled", 3}, {"stock", 402},
                                                    {"stock+overrides", 73}}));
}

TEST_F(RecipesCatalogue, TheTableKeepsTheImportanceMatrixEvidenceAndTheTypeNames) {
    const catalog::QueryResult r = sql("SELECT f.location, r.imatrix, t.name FROM recipes r JOIN files f USING (model_id)"
                                       " JOIN file_type_names t ON t.file_type = r.quantized_as");
    ASSERT_EQ(r.rows.size(), runs_.size());
    for (const auto& row : r.rows) {
        const test::QuantizeRun& run = runs_.at(text(row[0]));
        EXPECT_EQ(text(row[1]), test::run_options(run).imatrix ? "1" : "0") << run.name;
        EXPECT_TRUE(text(row[2]).starts_with("MOSTLY_") || text(row[2]) == "ALL_F32") << run.name;
    }
    EXPECT_EQ(text(sql("SELECT differences FROM recipes r JOIN files f USING (model_id)"
                       " WHERE f.location LIKE '%/llama-32L-Q4_K_M-scattered.gguf'").rows[0][0])
                  .substr(0, 52),
              "[\"attn_q: Q8_0 on 1 of 32 layers (stock Q4_K_M: 0)\",");
}

TEST_F(RecipesCatalogue, SameFileTypeDifferentPolicySaysWhyInTheRecipesWords) {
    const catalog::QueryResult r = sql("SELECT why FROM same_file_type_different_policy WHERE names LIKE '%Q4_K_M-pure%'"
                                       " AND architecture = 'llama' AND why LIKE '%32 layers%'");
    ASSERT_EQ(r.rows.size(), 1u);
    const std::string why = text(r.rows[0][0]);
    EXPECT_NE(why.find(": output: Q6_K\u2192Q4_K; attn_v: Q6_K\u2192Q4_K on 16 of 32 layers; ffn_down: Q6_K\u2192Q4_K on 16 of "
                       "32 layers (--pure)\n"),
              std::string::npos)
        << why;
    EXPECT_EQ(why.find(": stock"), std::string::npos) << why;  // stock members are left out
}

}  // namespace
