// Recipes read from real llama-quantize output: every stock file is stock, every
// file made with options is stock+overrides naming exactly those options (or the
// fewer that make the same file, each case said why), relabelled and hand-edited
// files are caught, and the Llama 3.1 8B lineup's Q4_K_L is Q4_K_M plus bartowski's options.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "format/gguf.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/llama31.hpp"
#include "quantize/recipe.hpp"
#include "quantize_runs.hpp"

using namespace modelcat;
using quantize::RecipeKind;

namespace {

std::vector<test::QuantizeRun> all_runs() {
    std::vector<test::QuantizeRun> runs = test::fixture_runs();
    for (test::QuantizeRun& r : test::quantize_runs()) runs.push_back(std::move(r));
    return runs;
}

const test::QuantizeRun& run_named(const std::vector<test::QuantizeRun>& runs, const std::string& name) {
    for (const test::QuantizeRun& r : runs)
        if (r.name == name) return r;
    throw std::runtime_error("no run " + name);
}

TEST(Recipe, EveryStockFileOfTheRealToolIsStock) {
    size_t n = 0;
    for (const test::QuantizeRun& run : all_runs()) {
        if (run.exit_code != 0 || test::typed_options(run) || test::relabelling(run)) continue;
        ++n;
        const quantize::Recipe r = quantize::infer_recipe(test::run_header(run));
        EXPECT_EQ(quantize::recipe_word(r.kind), "stock") << run.name << ": " << r.overrides() << " " << r.note;
        ASSERT_TRUE(r.quantized_as) << run.name;
        EXPECT_EQ(model::file_type_info(*r.quantized_as).tool_name, run.type) << run.name;
        EXPECT_EQ(r.matching, r.tensors) << run.name;
        EXPECT_EQ(r.revision(), "34af94cd9ab2") << run.name;
        EXPECT_EQ(r.imatrix, test::run_options(run).imatrix) << run.name;
    }
    EXPECT_EQ(n, 420u);
}

TEST(Recipe, EveryOverrideFileNamesTheOptionsUsed) {
    size_t n = 0, equivalent = 0;
    for (const test::QuantizeRun& run : all_runs()) {
        if (run.exit_code != 0 || !test::typed_options(run) || test::relabelling(run) || run.name.ends_with("-scattered")) continue;
        ++n;
        const quantize::Recipe r = quantize::infer_recipe(test::run_header(run));
        quantize::QuantizeOptions typed = test::run_options(run);
        std::string expected = typed.command_line();
        if (auto e = test::equivalents().find(run.name); e != test::equivalents().end()) {
            expected = e->second;
            ++equivalent;
        }
        EXPECT_EQ(quantize::recipe_word(r.kind), expected.empty() ? "stock" : "stock+overrides") << run.name;
        EXPECT_EQ(r.overrides(), expected) << run.name;
        EXPECT_EQ(model::file_type_info(*r.quantized_as).tool_name, run.type) << run.name;
        if (expected.empty()) EXPECT_EQ(r.matching, r.tensors) << run.name;
        else EXPECT_LT(r.matching, r.tensors) << run.name;
    }
    EXPECT_EQ(equivalent, test::equivalents().size());
    EXPECT_EQ(n, 85u);  // 79 of tests/llama-quantize, 6 of the fixture
}

TEST(Recipe, RelabelledFilesFollowTheTypeTheyWereMadeAs) {
    size_t n = 0;
    for (const test::QuantizeRun& run : all_runs()) {
        if (!test::relabelling(run)) continue;
        ++n;
        const quantize::Recipe r = quantize::infer_recipe(test::run_header(run));
        EXPECT_EQ(quantize::recipe_word(r.kind), "relabelled") << run.name;
        EXPECT_EQ(model::file_type_info(*r.quantized_as).tool_name, run.type) << run.name;
        std::string typed = test::run_options(run).command_line();
        auto kv = std::find(run.options.begin(), run.options.end(), "--override-kv");
        EXPECT_EQ(r.overrides(), "--override-kv " + *(kv + 1) + (typed.empty() ? "" : " " + typed)) << run.name;
        EXPECT_LT(r.matching, r.tensors) << run.name;
    }
    EXPECT_EQ(n, 3u);
}

TEST(Recipe, ScatteredOverridesAreCustom) {
    const auto runs = all_runs();
    const test::QuantizeRun& run = run_named(runs, "llama-32L-Q4_K_M-scattered");
    ASSERT_EQ(run.options.size(), 12u);  // six --tensor-type, on six kinds: past kMaxRecipeOptions
    const quantize::Recipe r = quantize::infer_recipe(test::run_header(run));
    EXPECT_EQ(quantize::recipe_word(r.kind), "custom");
    // The override of layer 21's ffn_down skips a counter step: layers 22-27 shift (22 and 25
    // gain Q6_K, 24 and 27 lose it), ten tensors in all.
    EXPECT_EQ(r.matching, r.tensors - 10);
    EXPECT_EQ(r.differences,
              (std::vector<std::string>{"attn_q: Q8_0 on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "ffn_gate: Q6_K on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "ffn_up: Q5_K on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "attn_k: Q3_K on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "attn_output: IQ4_NL on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "ffn_down: Q8_0 on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "ffn_down: Q6_K on 15 of 32 layers (stock Q4_K_M: 16)",
                                        "ffn_down: Q4_K on 16 of 32 layers (stock Q4_K_M: 16)"}));
}

// The type field of a tensor descriptor: after its name (u64 length + bytes), n_dims (u32) and the dims (u64 each).
void set_type(std::vector<uint8_t>& bytes, const model::TensorInfo& t, model::GgmlTypeId type) {
    const uint64_t at = t.info_offset + 8 + t.name.size() + 4 + 8 * t.dims.size();
    const auto v = static_cast<uint32_t>(type);
    for (int i = 0; i < 4; ++i) bytes.at(at + i) = static_cast<uint8_t>(v >> (8 * i));
}

TEST(Recipe, TypesEditedByHandAreCustom) {
    const auto runs = all_runs();
    const test::QuantizeRun& run = run_named(runs, "llama-32L-Q4_K_M");
    const model::FileHeader h = test::run_header(run);
    std::ifstream in(test::kRunsDir / "headers" / (run.name + ".gguf"), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Q4_0 and IQ4_NL store 32 elements in 18 bytes, as Q4_K does 256 in 144: every size still fits.
    const std::map<std::string, model::GgmlTypeId> edits{
        {"blk.1.attn_q.weight", model::GgmlTypeId::Q4_0},    {"blk.4.ffn_gate.weight", model::GgmlTypeId::IQ4_NL},
        {"blk.7.ffn_up.weight", model::GgmlTypeId::Q4_0},    {"blk.10.attn_output.weight", model::GgmlTypeId::IQ4_NL},
        {"blk.13.attn_k.weight", model::GgmlTypeId::Q4_0}};
    for (const model::TensorInfo& t : h.tensors)
        if (auto e = edits.find(t.name); e != edits.end()) set_type(bytes, t, e->second);
    format::ParseResult parsed = format::parse_gguf(bytes, *run.file_size);
    const model::FileHeader& edited = std::get<model::FileHeader>(parsed);
    EXPECT_TRUE(edited.warnings.empty());
    const quantize::Recipe r = quantize::infer_recipe(edited);
    EXPECT_EQ(quantize::recipe_word(r.kind), "custom");
    EXPECT_EQ(r.matching, r.tensors - 5);
    EXPECT_EQ(r.differences,
              (std::vector<std::string>{"attn_q: Q4_0 on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "ffn_gate: IQ4_NL on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "ffn_up: Q4_0 on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "attn_output: IQ4_NL on 1 of 32 layers (stock Q4_K_M: 0)",
                                        "attn_k: Q4_0 on 1 of 32 layers (stock Q4_K_M: 0)"}));
}

TEST(Recipe, SplitModelsAreReadWhole) {
    std::vector<model::FileHeader> shards;
    for (int i = 1; i <= 3; ++i)
        shards.push_back(test::read_header(test::kFixtureDir / "split" /
                                           ("tiny-split-Q4_K_M-0000" + std::to_string(i) + "-of-00003.gguf")));
    const std::vector<const model::FileHeader*> in_order{&shards[0], &shards[1], &shards[2]};
    const quantize::Recipe whole = quantize::infer_recipe(quantize::joined_shards(in_order));
    EXPECT_EQ(quantize::recipe_word(whole.kind), "stock");
    EXPECT_EQ(whole.tensors, 58u);
    // The first shard alone holds 2 of the 6 attn_v: use_more_bits would count them as all there are.
    EXPECT_NE(quantize::recipe_word(quantize::infer_recipe(shards.front()).kind), "stock");
}

TEST(Recipe, Llama31LineupQ4KLIsQ4KMWithBartowskisOptions) {
    std::vector<std::string> names, verdicts;
    for (const kit::Llama31Quant& q : kit::llama31_quants()) {
        const quantize::Recipe r = quantize::infer_recipe(kit::parse_header(kit::llama31_quant(q.name)));
        names.emplace_back(q.name);
        verdicts.push_back(std::string(quantize::recipe_word(r.kind)) + " " +
                           std::string(model::file_type_info(*r.quantized_as).tool_name) +
                           (r.overrides().empty() ? "" : " " + r.overrides()) + " @" + r.revision());
        EXPECT_TRUE(r.imatrix) << q.name;  // bartowski's files carry quantize.imatrix.* keys
    }
    EXPECT_EQ(names, (std::vector<std::string>{"IQ2_M", "Q2_K", "Q3_K_M", "Q4_K_S", "Q4_K_M", "Q4_K_L", "Q6_K", "Q8_0"}));
    // Made in July 2024, when llama-quantize visited tensors in file order: that order decides
    // which ffn_down and attn_v layers Q4_K_M's use_more_bits promotes (the converter sorted each
    // shard's keys as text: layer 9 follows 10-20); for the other types it makes no difference.
    EXPECT_EQ(verdicts, (std::vector<std::string>{
                            "stock IQ2_M @34af94cd9ab2",
                            "stock Q2_K @34af94cd9ab2",
                            "stock Q3_K_M @34af94cd9ab2",
                            "stock Q4_K_S @34af94cd9ab2",
                            "stock Q4_K_M @34af94cd9ab2 (file order)",
                            "stock+overrides Q4_K_M --token-embedding-type q8_0 --output-tensor-type q8_0 @34af94cd9ab2 (file order)",
                            "stock Q6_K @34af94cd9ab2",
                            "stock Q8_0 @34af94cd9ab2",
                        }));
}

TEST(Recipe, WhyTwoFilesOfOneFileTypeDiffer) {
    const model::FileHeader m = kit::parse_header(kit::llama31_quant("Q4_K_M"));
    const model::FileHeader l = kit::parse_header(kit::llama31_quant("Q4_K_L"));
    EXPECT_EQ(quantize::recipe_why(m, l, quantize::infer_recipe(l)),
              "token_embd: Q4_K\u2192Q8_0; output: Q6_K\u2192Q8_0 "
              "(--token-embedding-type q8_0 --output-tensor-type q8_0)");
    EXPECT_EQ(quantize::recipe_why(l, m, quantize::infer_recipe(m)), "token_embd: Q8_0\u2192Q4_K; output: Q8_0\u2192Q6_K (stock)");
    // Against the replayed stock policy: one file is enough.
    EXPECT_EQ(quantize::infer_recipe(l).why,
              "token_embd: Q4_K\u2192Q8_0; output: Q6_K\u2192Q8_0 "
              "(--token-embedding-type q8_0 --output-tensor-type q8_0)");
    EXPECT_EQ(quantize::infer_recipe(m).why, "stock");
    const auto runs = all_runs();
    const model::FileHeader stock = test::run_header(run_named(runs, "llama-32L-Q4_K_M"));
    const model::FileHeader pure = test::run_header(run_named(runs, "llama-32L-Q4_K_M-pure"));
    EXPECT_EQ(quantize::recipe_why(stock, pure, quantize::infer_recipe(pure)),
              "output: Q6_K\u2192Q4_K; attn_v: Q6_K\u2192Q4_K on 16 of 32 layers; ffn_down: Q6_K\u2192Q4_K on 16 of 32 layers "
              "(--pure)");
    const model::FileHeader edge = test::run_header(run_named(runs, "qwen2-24L-Q5_K_L"));
    const model::FileHeader edge_stock = test::run_header(run_named(runs, "qwen2-24L-Q5_K_M"));
    EXPECT_EQ(quantize::recipe_why(edge_stock, edge, quantize::infer_recipe(edge)),
              "output: Q6_K\u2192Q8_0; token_embd: Q5_K\u2192Q8_0 (--token-embedding-type q8_0 --output-tensor-type q8_0)");
}

TEST(Recipe, UnknownWhenTheRulesDoNotReach) {
    auto header = [](const std::string& arch, uint32_t file_type) {
        kit::GgufWriter w;
        w.add_kv("general.architecture", kit::GgufValue::str(arch));
        w.add_kv("general.file_type", kit::GgufValue::u32(file_type));
        w.add_kv(arch + ".block_count", kit::GgufValue::u32(1));
        w.add_tensor("blk.0.attn_q.weight", {256, 256}, kit::kQ8_0);
        return kit::parse_header(w);
    };
    EXPECT_EQ(quantize::recipe_word(quantize::infer_recipe(header("llama", 7)).kind), "stock");
    const quantize::Recipe made_up = quantize::infer_recipe(header("made-up", 7));
    EXPECT_EQ(quantize::recipe_word(made_up.kind), "unknown");
    EXPECT_EQ(made_up.note, "architecture made-up is not one llama.cpp 34af94cd9ab2 loads");
    const quantize::Recipe nvfp4 = quantize::infer_recipe(header("llama", 39));
    EXPECT_EQ(nvfp4.note, "general.file_type 39 is not a type llama-quantize 34af94cd9ab2 writes");
    model::FileHeader safetensors;
    safetensors.format = model::Format::safetensors;
    EXPECT_EQ(quantize::infer_recipe(safetensors).note, "not a GGUF file");
}

}  // namespace
