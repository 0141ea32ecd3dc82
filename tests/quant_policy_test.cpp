// The replay of llama-quantize's type choice against what the real llama-quantize
// (llama.cpp 34af94cd, built by hand) wrote: every file of tests/llama-quantize/
// and ../shared/fixtures/llama-cpp/, every tensor, and every refusal.
#include <gtest/gtest.h>

#include "catalog/writer.hpp"
#include "model/ggml_types.hpp"
#include "quantize/quant_policy.hpp"
#include "quantize_runs.hpp"
#include "support.hpp"

using namespace modelcat;
using model::GgmlTypeId;

namespace {

model::FileType file_type_argument(const std::string& tool_name) {
    if (tool_name == "Q3_K") return model::FileType::MOSTLY_Q3_K_M;  // llama-quantize's aliases
    if (tool_name == "Q4_K") return model::FileType::MOSTLY_Q4_K_M;
    if (tool_name == "Q5_K") return model::FileType::MOSTLY_Q5_K_M;
    for (const model::FileTypeInfo& f : model::quantize_file_types())
        if (f.tool_name == tool_name) return f.id;
    throw std::runtime_error("not a file type llama-quantize takes: " + tool_name);
}

quantize::ModelDesc desc_of(const model::FileHeader& h) {
    auto d = quantize::model_desc(h);
    if (auto* why = std::get_if<std::string>(&d)) throw std::runtime_error(*why);
    return std::get<quantize::ModelDesc>(d);
}

// The sources hold matrices in BF16 and everything 1-D in F32; what llama-quantize
// leaves alone keeps that.
uint32_t source_type(const model::TensorInfo& t) {
    size_t dims = 0;
    for (size_t i = 0; i < t.dims.size(); ++i)
        if (t.dims[i] > 1) dims = i + 1;
    return static_cast<uint32_t>(dims >= 2 ? GgmlTypeId::BF16 : GgmlTypeId::F32);
}

// Tensors whose replayed type is not the file's: "blk.3.ffn_down.weight: file Q6_K, replay Q4_K".
std::vector<std::string> mismatches(const test::QuantizeRun& run) {
    const model::FileHeader h = test::run_header(run);
    const quantize::Replay r = quantize::replay(desc_of(h), file_type_argument(run.type), test::run_options(run));
    if (!r.refusal.empty()) return {"replay refused: " + r.refusal};
    std::vector<std::string> out;
    for (size_t i = 0; i < h.tensors.size(); ++i) {
        const model::TensorInfo& t = h.tensors[i];
        const uint32_t want = r.types[i] ? static_cast<uint32_t>(*r.types[i]) : source_type(t);
        if (t.type_id != want)
            out.push_back(t.name + ": file " + t.type_name + ", replay " + model::ggml_type_name(want) +
                          (r.types[i] ? "" : " (kept)"));
    }
    return out;
}

void expect_every_tensor(const std::vector<test::QuantizeRun>& runs, size_t& files, size_t& refusals) {
    for (const test::QuantizeRun& run : runs) {
        if (run.exit_code != 0) continue;
        ++files;
        const std::vector<std::string> wrong = mismatches(run);
        EXPECT_TRUE(wrong.empty()) << run.name << ": " << wrong.size() << " tensors differ, first "
                                   << (wrong.empty() ? "" : wrong.front());
    }
    for (const test::QuantizeRun& run : runs) {
        if (run.exit_code == 0) continue;
        ++refusals;
        // The refused runs' sources are the successful runs' models: any of their files describes them.
        auto made = std::find_if(runs.begin(), runs.end(),
                                 [&](const test::QuantizeRun& r) { return r.model == run.model && r.exit_code == 0; });
        ASSERT_NE(made, runs.end()) << run.name;
        const quantize::Replay r =
            quantize::replay(desc_of(test::run_header(*made)), file_type_argument(run.type), test::run_options(run));
        // The tool's words: "requires an importance matrix", "no tensor type fallback is defined for type q4_0".
        const bool imatrix = run.error.find("importance matrix") != std::string::npos;
        const std::string said = imatrix ? "importance matrix" : r.refusal.substr(0, r.refusal.find(" ("));
        EXPECT_TRUE(!r.refusal.empty() && run.error.find(said) != std::string::npos && r.refusal.find(imatrix ? said : "") != std::string::npos)
            << run.name << ": llama-quantize said '" << run.error << "', the replay '" << r.refusal << "'";
    }
}

TEST(QuantReplay, EveryTensorOfEveryFileTheRealToolWrote) {
    size_t files = 0, refusals = 0;
    expect_every_tensor(test::quantize_runs(), files, refusals);
    EXPECT_EQ(files, 479u);
    EXPECT_EQ(refusals, 111u);
}

TEST(QuantReplay, EveryTensorOfTheSharedFixture) {
    size_t files = 0, refusals = 0;
    expect_every_tensor(test::fixture_runs(), files, refusals);
    EXPECT_EQ(files, 30u);
    EXPECT_EQ(refusals, 9u);
}

// Two documented consequences of the revision's code, on the real files.
TEST(QuantReplay, PartialTensorTypeShiftsTheDenseCounters) {
    const std::vector<test::QuantizeRun> runs = test::quantize_runs();
    auto run = [&](const std::string& name) {
        auto it = std::find_if(runs.begin(), runs.end(), [&](const test::QuantizeRun& r) { return r.name == name; });
        if (it == runs.end()) throw std::runtime_error("no run " + name);
        return *it;
    };
    auto type_of = [](const model::FileHeader& h, const std::string& tensor) {
        for (const model::TensorInfo& t : h.tensors)
            if (t.name == tensor) return t.type_name;
        return std::string("absent");
    };
    // Stock Q4_K_M on 32 layers: use_more_bits picks ffn_down of 0-3, 6, 9, ... Overriding
    // layers 0-3 skips their counter steps, so layer 4 counts as 0 and gets Q6_K.
    const model::FileHeader stock = test::run_header(run("llama-32L-Q4_K_M"));
    const model::FileHeader partial = test::run_header(run("llama-32L-Q4_K_M-ffndown0123-q8"));
    EXPECT_EQ(type_of(stock, "blk.4.ffn_down.weight"), "Q4_K");
    EXPECT_EQ(type_of(partial, "blk.4.ffn_down.weight"), "Q6_K");
    EXPECT_EQ(type_of(partial, "blk.0.ffn_down.weight"), "Q8_0");
    // MoE models take the layer from the name: no shift.
    const model::FileHeader moe_stock = test::run_header(run("mixtral-8x-16L-Q4_K_M"));
    const model::FileHeader moe_partial = test::run_header(run("mixtral-8x-16L-Q4_K_M-ffndown0123-q8"));
    for (int l = 4; l < 16; ++l) {
        const std::string n = "blk." + std::to_string(l) + ".ffn_down_exps.weight";
        EXPECT_EQ(type_of(moe_partial, n), type_of(moe_stock, n)) << n;
    }
}

// A --tensor-type pattern made of literals and one group of alternatives is matched without
// std::regex: the replay must choose as the regex search would (a pattern ending in "(?:)" means the
// same and still goes through std::regex).
TEST(QuantReplay, TensorTypePatternsMatchAsTheRegexSearchWould) {
    quantize::ModelDesc m{"llama", 13, 8, 8, 0, {{"token_embd.weight", {256, 512}}}};
    for (int l = 0; l < 13; ++l)
        for (const char* kind : {"attn_v", "ffn_down", "ffn_down_exps"})
            m.tensors.push_back({"blk." + std::to_string(l) + "." + kind + ".weight", {256, 256}});
    m.tensors.push_back({"output.weight", {256, 512}});
    auto types = [&](const std::string& pattern) {
        quantize::QuantizeOptions o;
        o.tensor_types = {{pattern, GgmlTypeId::Q8_0}};
        const quantize::Replay r = quantize::replay(m, model::FileType::MOSTLY_Q4_K_M, o);
        std::vector<std::string> q8;
        if (!r.refusal.empty()) q8.push_back(r.refusal.substr(0, r.refusal.find(':')));
        for (size_t i = 0; i < r.types.size(); ++i)
            if (r.types[i] == GgmlTypeId::Q8_0) q8.push_back(m.tensors[i].name);
        return q8;
    };
    for (const std::string p : {"attn_v", "blk\\.(1|12)\\.attn_v", "blk\\.1\\.", "ffn_down\\.", "ffn_(down|up)_exps",
                                "blk\\.(|1)2\\.", "token-embd", ""})
        EXPECT_EQ(types(p), types(p + "(?:)")) << p;
    EXPECT_EQ(types("blk\\.(1|12)\\.attn_v"),
              (std::vector<std::string>{"blk.1.attn_v.weight", "blk.12.attn_v.weight"}));
    EXPECT_EQ(types("ffn_down\\.").size(), 13u);
    EXPECT_EQ(types("ffn_down").size(), 26u);
    EXPECT_EQ(types("blk\\.(1|2"), std::vector<std::string>{"invalid --tensor-type pattern"});
}

// file_types.def is the one list: the catalogue's file_type_names is written from it, all of
// llama.h's llama_ftype (0-41 and GUESSED), and every type llama-quantize writes is a live one.
TEST(QuantReplay, FileTypeNamesAreTheCataloguesFileTypeNames) {
    test::TempDir dir;
    const std::string path = (dir.path() / "catalog.db").string();
    { catalog::Writer writer(path); }
    SQLite::Database db(path);
    SQLite::Statement st(db, "SELECT file_type, name, removed FROM file_type_names ORDER BY file_type");
    for (const model::FileTypeName& f : model::file_type_names()) {
        ASSERT_TRUE(st.executeStep()) << f.name;
        EXPECT_EQ(st.getColumn(0).getInt64(), f.id);
        EXPECT_EQ(st.getColumn(1).getString(), f.name);
        EXPECT_EQ(st.getColumn(2).getInt() != 0, f.removed) << f.name;
    }
    EXPECT_FALSE(st.executeStep());
    EXPECT_EQ(model::file_type_names().size(), 43u);
    EXPECT_EQ(model::file_type_names().back().name, "GUESSED");
    for (const model::FileTypeInfo& f : model::quantize_file_types()) {
        auto named = std::find_if(model::file_type_names().begin(), model::file_type_names().end(),
                                  [&](const model::FileTypeName& n) { return n.id == static_cast<uint32_t>(f.id); });
        ASSERT_NE(named, model::file_type_names().end()) << f.name;
        EXPECT_EQ(named->name, f.name);
        EXPECT_FALSE(named->removed) << f.name;
    }
}

TEST(QuantReplay, TypeNamesAndOptionsAsTyped) {
    EXPECT_EQ(quantize::parse_type("q4_k"), GgmlTypeId::Q4_K);
    EXPECT_EQ(quantize::parse_type("IQ2_XXS"), GgmlTypeId::IQ2_XXS);
    EXPECT_EQ(quantize::parse_type("q4_k_m"), std::nullopt);
    quantize::QuantizeOptions o;
    o.pure = true;
    o.token_embedding_type = GgmlTypeId::Q8_0;
    o.output_tensor_type = GgmlTypeId::Q6_K;
    o.tensor_types = {{"attn_q", GgmlTypeId::IQ4_XS}, {"blk\\.(0|1)\\.ffn_down", GgmlTypeId::Q8_0}};
    EXPECT_EQ(o.command_line(),
              "--pure --token-embedding-type q8_0 --output-tensor-type q6_K --tensor-type attn_q=iq4_xs "
              "--tensor-type 'blk\\.(0|1)\\.ffn_down=q8_0'");
    EXPECT_EQ(o.count(), 5u);
}

}  // namespace
