// The conversion audit end to end: a generated Llama-3-style checkpoint and
// its conversions written the converter's way pass (BF16 exact, Q8_0 and
// Q4_K within tolerance); each planted defect fails, naming the tensor.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "format/model_config.hpp"
#include "kit/llama_conversion.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::ConversionDefect;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kF16 = 1, kBf16 = 30, kQ8_0 = 8, kQ4_K = 12;

class Audit : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        kit::write_llama_checkpoint(source(), {});
        kit::LlamaShape tied;
        tied.tied = true;
        kit::write_llama_checkpoint(dir_->path() / "tied", tied);
        kit::write_llama_conversion(dir_->path() / "tied.gguf", tied, {});
    }
    static void TearDownTestSuite() { delete dir_; }
    static std::filesystem::path source() { return dir_->path() / "Kit-Llama"; }
    static std::string db() { return (dir_->path() / "audits.db").string(); }

    // Writes the conversion (once per type and defect) and audits it.
    static test::CommandResult audit(uint32_t type, ConversionDefect defect = ConversionDefect::none,
                                     const std::string& extra = "") {
        std::string name = "conv-" + std::to_string(type) + "-" + std::to_string(static_cast<int>(defect)) + ".gguf";
        std::filesystem::path gguf = dir_->path() / name;
        if (!std::filesystem::exists(gguf)) kit::write_llama_conversion(gguf, {}, {type, defect});
        return test::run_modelcat("audit --db " + db() + " " + extra + " " + gguf.string() + " " + source().string());
    }
    static int64_t latest_audit() {
        SQLite::Database d(db());
        return d.execAndGet("SELECT max(audit_id) FROM audits").getInt64();
    }
    static std::string scalar(const std::string& sql) {
        SQLite::Database d(db());
        SQLite::Statement st(d, sql);
        st.bind(1, latest_audit());
        return st.executeStep() ? st.getColumn(0).getString() : "<no row>";
    }
    static test::TempDir* dir_;
};
test::TempDir* Audit::dir_ = nullptr;

}  // namespace

TEST_F(Audit, Bf16ConversionIsExactForEveryTensor) {
    auto r = audit(kBf16);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Source tensors accounted for                  30 / 30"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Exact match (23 tensors)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Exact (7 tensors)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Complete (6 tensors)"), std::string::npos) << r.out;
    EXPECT_EQ(scalar("SELECT verdict || ' ' || matched || ' ' || exact || ' ' || generated_ok FROM audits WHERE audit_id = ?"),
              "pass 30 30 1");
    EXPECT_EQ(scalar("SELECT transform || ' ' || verdict FROM audit_tensors WHERE audit_id = ? AND gguf_tensor = 'blk.2.attn_k.weight'"),
              "permute_k exact");
    EXPECT_EQ(scalar("SELECT transform || ' ' || verdict FROM audit_tensors WHERE audit_id = ? AND gguf_tensor = 'blk.0.attn_norm.weight'"),
              "bf16->f32 exact");
    EXPECT_EQ(scalar("SELECT count(*) FROM audit_tensors WHERE audit_id = ? AND (nmse <> 0 OR cosine <> 1 OR compared <> elements)"), "0");
}

TEST_F(Audit, QuantizedConversionsPassWithinTheirTypesCeiling) {
    for (auto [type, name, ceiling] : {std::tuple{kQ8_0, "Q8_0", 2e-4}, std::tuple{kQ4_K, "Q4_K", 2e-2}}) {
        auto r = audit(type);
        ASSERT_EQ(r.exit_code, 0) << name << r.out << r.err;
        EXPECT_EQ(scalar("SELECT within_tolerance || ' ' || exact FROM audits WHERE audit_id = ?"), "23 7") << name;
        double worst = std::stod(scalar("SELECT max(nmse) FROM audit_tensors WHERE audit_id = ? AND verdict = 'within_tolerance'"));
        EXPECT_GT(worst, 0) << name;
        EXPECT_LT(worst, ceiling) << name;
        EXPECT_GT(std::stod(scalar("SELECT min(cosine) FROM audit_tensors WHERE audit_id = ? AND gguf_type <> 'F32'")), 0.99);
    }
}

TEST_F(Audit, TiedEmbeddingsNeedNoOutputTensor) {
    auto r = test::run_modelcat("audit --db " + db() + " " + (dir_->path() / "tied.gguf").string() + " " +
                                (dir_->path() / "tied" / "model.safetensors.index.json").string());
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("29 / 29"), std::string::npos) << r.out;
}

TEST_F(Audit, F32SourceNarrowedToBf16OrF16IsExactAfterRoundingAndMeasuredAgainstTheSource) {
    kit::LlamaShape f32;
    f32.source_dtype = "F32";
    fs::path dir = dir_->path() / "f32";
    kit::write_llama_checkpoint(dir / "ckpt", f32);
    kit::write_llama_conversion(dir / "bf16.gguf", f32, {});
    auto r = test::run_modelcat("audit --db " + db() + " " + (dir / "bf16.gguf").string() + " " + (dir / "ckpt").string());
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(scalar("SELECT transform || ' ' || verdict FROM audit_tensors WHERE audit_id = ? AND gguf_tensor = 'blk.1.attn_q.weight'"),
              "permute_q,f32->bf16 exact");
    EXPECT_EQ(scalar("SELECT coalesce(transform, 'none') || ' ' || verdict FROM audit_tensors"
                     " WHERE audit_id = ? AND gguf_tensor = 'output_norm.weight'"),
              "none exact");  // F32 kept as it was
    // The error columns are the rounding's, measured against the F32 source: at most 2^-9 of a value.
    EXPECT_EQ(scalar("SELECT count(*) FROM audit_tensors WHERE audit_id = ? AND transform LIKE '%f32->bf16'"
                     " AND nmse > 0 AND nmse < 1e-5 AND max_abs_error > 0 AND cosine < 1"), "23");
    EXPECT_NE(r.out.find("Narrowed values (F32/BF16 to BF16/F16)        Rounded to nearest even (23 tensors, max error"), std::string::npos)
        << r.out;
    // F32 to F16 likewise (2^-11 of a value in F16's normal range).
    kit::write_llama_conversion(dir / "f16.gguf", f32, {kF16});
    auto h = test::run_modelcat("audit --db " + db() + " " + (dir / "f16.gguf").string() + " " + (dir / "ckpt").string());
    ASSERT_EQ(h.exit_code, 0) << h.out << h.err;
    EXPECT_EQ(scalar("SELECT count(*) FROM audit_tensors WHERE audit_id = ? AND transform LIKE '%f32->f16' AND verdict = 'exact'"
                     " AND nmse > 0 AND nmse < 1e-6"), "23");
    // A changed element still shows through the rounding.
    kit::write_llama_conversion(dir / "bf16-changed.gguf", f32, {kBf16, ConversionDefect::changed_element});
    auto bad = test::run_modelcat("audit --db " + db() + " " + (dir / "bf16-changed.gguf").string() + " " + (dir / "ckpt").string());
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.out.find("at source row 5, column 7"), std::string::npos) << bad.out;
}

TEST_F(Audit, ChangedElementFailsWithItsRowAndColumn) {
    auto r = audit(kBf16, ConversionDefect::changed_element);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("FAIL blk.1.attn_v.weight (source model.layers.1.self_attn.v_proj.weight): mismatch at source row 5, column 7"),
              std::string::npos) << r.out;
    EXPECT_EQ(scalar("SELECT mismatches || ' ' || first_mismatch_row || ' ' || first_mismatch_col FROM audit_tensors"
                     " WHERE audit_id = ? AND verdict = 'mismatch'"), "1 5 7");
    EXPECT_EQ(scalar("SELECT verdict || ' ' || mismatched FROM audits WHERE audit_id = ?"), "fail 1");
}

TEST_F(Audit, EachDefectFailsNamingItsTensor) {
    for (auto defect : {ConversionDefect::unpermuted_q, ConversionDefect::unpermuted_k, ConversionDefect::swapped_layers,
                        ConversionDefect::missing_tensor, ConversionDefect::unscaled_rope, ConversionDefect::transposed,
                        ConversionDefect::transposed_square}) {
        std::string tensor = kit::defect_tensor(defect);
        auto r = audit(kBf16, defect);
        EXPECT_EQ(r.exit_code, 1) << tensor << r.out;
        EXPECT_NE(r.out.find(tensor), std::string::npos) << r.out;
        EXPECT_EQ(scalar("SELECT verdict FROM audits WHERE audit_id = ?"), "fail") << tensor;
        EXPECT_EQ(scalar("SELECT count(*) FROM audit_tensors WHERE audit_id = ? AND verdict IN ('exact', 'generated_ok')"),
                  defect == ConversionDefect::swapped_layers ? "29" : "30") << tensor;
    }
    EXPECT_NE(audit(kBf16, ConversionDefect::swapped_layers).out.find("FAIL blk.1.ffn_up.weight"), std::string::npos);
    EXPECT_NE(audit(kBf16, ConversionDefect::missing_tensor).out.find("unmatched_source: no GGUF tensor blk.1.ffn_down.weight"),
              std::string::npos);
    EXPECT_NE(audit(kBf16, ConversionDefect::transposed).out.find("stored transposed?"), std::string::npos);
    EXPECT_EQ(scalar("SELECT verdict FROM audit_tensors WHERE audit_id = ? AND gguf_tensor = 'blk.0.ffn_gate.weight'"), "mismatch");
}

TEST_F(Audit, RowsInTheWrongOrderFailAtEveryType) {
    for (uint32_t type : {kQ8_0, kQ4_K}) {
        for (auto defect : {ConversionDefect::unpermuted_q, ConversionDefect::swapped_layers, ConversionDefect::transposed_square}) {
            auto r = audit(type, defect);
            EXPECT_EQ(r.exit_code, 1) << type << r.out;
            EXPECT_NE(r.out.find("FAIL " + kit::defect_tensor(defect)), std::string::npos) << r.out;
            EXPECT_GT(std::stod(scalar("SELECT min(nmse) FROM audit_tensors WHERE audit_id = ? AND verdict = 'mismatch'")), 0.5);
        }
    }
}

TEST_F(Audit, SampleModeReadsFewerBytesAndStillCatchesWrongRows) {
    auto full = audit(kBf16);
    ASSERT_EQ(full.exit_code, 0);
    int64_t full_bytes = std::stoll(scalar("SELECT bytes_read FROM audits WHERE audit_id = ?"));
    auto sampled = audit(kBf16, ConversionDefect::none, "--sample-rows 4");
    ASSERT_EQ(sampled.exit_code, 0) << sampled.out;
    EXPECT_NE(sampled.out.find("4 per tensor (sample)"), std::string::npos);
    int64_t sample_bytes = std::stoll(scalar("SELECT bytes_read FROM audits WHERE audit_id = ?"));
    EXPECT_LT(sample_bytes * 10, full_bytes);
    EXPECT_EQ(scalar("SELECT compared FROM audit_tensors WHERE audit_id = ? AND gguf_tensor = 'token_embd.weight'"), "1024");
    EXPECT_EQ(audit(kBf16, ConversionDefect::unpermuted_k, "--sample-rows 4").exit_code, 1);
    EXPECT_EQ(audit(kQ4_K, ConversionDefect::swapped_layers, "--sample-rows 4").exit_code, 1);
}

TEST_F(Audit, JobsDoNotChangeTheResult) {
    auto one = audit(kQ4_K, ConversionDefect::none, "--jobs 1");
    std::string a = scalar("SELECT group_concat(gguf_tensor || nmse, ',') FROM audit_tensors WHERE audit_id = ?");
    auto four = audit(kQ4_K, ConversionDefect::none, "--jobs 4");
    auto without_last_line = [](const std::string& s) { return s.substr(0, s.rfind("audit ")); };  // ids and seconds differ
    EXPECT_EQ(without_last_line(one.out), without_last_line(four.out));
    EXPECT_NE(without_last_line(one.out).find("23 within tolerance"), std::string::npos);
    EXPECT_EQ(scalar("SELECT group_concat(gguf_tensor || nmse, ',') FROM audit_tensors WHERE audit_id = ?"), a);
}

TEST_F(Audit, BundledReportPrintsTheLatestOrAGivenAudit) {
    audit(kBf16, ConversionDefect::missing_tensor);
    int64_t failed = latest_audit();
    audit(kBf16);
    auto latest = test::run_modelcat("query audit --db " + db());
    EXPECT_NE(latest.out.find("30 / 30"), std::string::npos) << latest.out;
    auto given = test::run_modelcat("query audit --db " + db() + " -p audit=" + std::to_string(failed));
    EXPECT_NE(given.out.find("29 / 30"), std::string::npos) << given.out;
    EXPECT_NE(given.out.find("fail"), std::string::npos);
}

TEST_F(Audit, ATypeWithoutDequantizerIsNotComparedAndFails) {
    auto r = audit(43);  // an id newer than this build's type table
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("FAIL blk.0.attn_q.weight (source model.layers.0.self_attn.q_proj.weight): not_compared: no dequantizer for type_43"),
              std::string::npos) << r.out;
    EXPECT_EQ(scalar("SELECT count(*) FROM audit_tensors WHERE audit_id = ? AND verdict = 'not_compared'"), "23");
    EXPECT_EQ(scalar("SELECT mismatched || ' ' || exact FROM audits WHERE audit_id = ?"), "23 7");
}

// Typed relative, the locations are stored as the crawl stores them (absolute) and the audit is linked
// to both catalogued models.
TEST_F(Audit, RelativeLocationsAreResolvedAndLinkedToTheirCataloguedModels) {
    std::filesystem::path gguf = dir_->path() / "conv-30-0.gguf";
    if (!std::filesystem::exists(gguf)) kit::write_llama_conversion(gguf, {}, {});
    ASSERT_EQ(test::run_modelcat("crawl -q --db " + db() + " " + gguf.string() + " " + source().string()).exit_code, 0);
    auto r = test::run_modelcat("audit --db " + db() + " conv-30-0.gguf ./Kit-Llama/../Kit-Llama", "cd " + dir_->path().string() + " && ");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(scalar("SELECT gguf_location || ' ' || source_location FROM audits WHERE audit_id = ?"),
              gguf.string() + " " + source().string());
    EXPECT_EQ(scalar("SELECT (SELECT location FROM models WHERE model_id = gguf_model_id) || ' ' ||"
                     " (SELECT location FROM models WHERE model_id = source_model_id) FROM audits WHERE audit_id = ?"),
              gguf.string() + " " + (source() / "model-00001-of-00002.safetensors").string());
}

TEST_F(Audit, UnreadableInputsAreUsageErrors) {
    auto r = test::run_modelcat("audit --db " + db() + " " + (dir_->path() / "none.gguf").string() + " " + source().string());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("none.gguf"), std::string::npos) << r.err;
    EXPECT_EQ(test::run_modelcat("audit --db " + db()).exit_code, 2);
}

TEST(RopeFactors, Llama3ScalingOfLlama31) {
    std::string json = R"({"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"}})";
    auto c = format::parse_model_architecture({reinterpret_cast<const uint8_t*>(json.data()), json.size()});
    auto f = format::llama3_rope_factors(c);
    ASSERT_EQ(f.size(), 64u);
    EXPECT_EQ(f.front(), 1.0);
    EXPECT_EQ(f.back(), 8.0);
    // Between the two wavelengths the factor rises smoothly: check one by hand.
    double freq = std::pow(500000.0, -60.0 / 128), wavelen = 2 * std::numbers::pi / freq;
    ASSERT_GT(wavelen, 2048);
    ASSERT_LT(wavelen, 8192);
    double smooth = (8192 / wavelen - 1) / 3;
    EXPECT_DOUBLE_EQ(f[30], 1 / ((1 - smooth) / 8 + smooth));
    std::string plain = R"({"hidden_size": 4096, "num_attention_heads": 32})";
    EXPECT_TRUE(format::llama3_rope_factors(format::parse_model_architecture(
                    {reinterpret_cast<const uint8_t*>(plain.data()), plain.size()})).empty());
}
