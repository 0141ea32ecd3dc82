// The metadata audit: each GGUF key with a source in the checkpoint's files held
// against the value llama.cpp's converter would write from them. The kit's
// Llama-3.1-style checkpoint (byte-level BPE with merges and added tokens, a chat
// template, several EOS ids) and its conversions, right and with each bug made on
// purpose; and llama.cpp's own converter output in ../shared/fixtures/llama-cpp/.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <fstream>

#include "audit/metadata_audit.hpp"
#include "format/gguf.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/llama_conversion.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::MetadataDefect;
namespace fs = std::filesystem;

namespace {

const fs::path kLlamaCpp = MODELCAT_SOURCE_DIR "/../shared/fixtures/llama-cpp";

class MetadataAudit : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        kit::write_llama_checkpoint(source(), {});
    }
    static void TearDownTestSuite() { delete dir_; }
    static fs::path source() { return dir_->path() / "Kit-Llama"; }
    static std::string db() { return (dir_->path() / "audits.db").string(); }

    static test::CommandResult audit(MetadataDefect defect) {
        fs::path gguf = dir_->path() / ("meta-" + std::to_string(static_cast<int>(defect)) + ".gguf");
        kit::write_llama_conversion(gguf, {}, {.metadata = defect});
        return test::run_modelcat("audit --db " + db() + " " + gguf.string() + " " + source().string());
    }
    // One column of the latest audit's row for `key` (and `source_path` when given).
    static std::string cell(const std::string& column, const std::string& key, const std::string& source_path = "") {
        SQLite::Database d(db());
        SQLite::Statement st(d, "SELECT coalesce(" + column + ", '<null>') FROM audit_metadata WHERE audit_id = (SELECT max(audit_id) FROM audits)"
                                " AND key = ? AND (? = '' OR source_path = ?)");
        st.bind(1, key), st.bind(2, source_path), st.bind(3, source_path);
        return st.executeStep() ? st.getColumn(0).getString() : "<no row>";
    }
    static std::string count(const std::string& where) {
        SQLite::Database d(db());
        return d.execAndGet("SELECT count(*) FROM audit_metadata WHERE audit_id = (SELECT max(audit_id) FROM audits) AND " + where)
            .getString();
    }
    static test::TempDir* dir_;
};
test::TempDir* MetadataAudit::dir_ = nullptr;

}  // namespace

TEST_F(MetadataAudit, TheConvertersWayIsEqualOrConvertedKeyByKey) {
    auto r = audit(MetadataDefect::none);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(count("verdict NOT IN ('equal', 'converted')"), "0") << r.out;
    EXPECT_EQ(count("effect <> 'ok'"), "0");
    EXPECT_EQ(r.out.find("warn "), std::string::npos) << r.out;
    for (const char* key : {"llama.block_count", "llama.context_length", "llama.embedding_length", "llama.feed_forward_length",
                            "llama.attention.head_count", "llama.attention.head_count_kv", "llama.rope.freq_base",
                            "llama.attention.key_length", "llama.vocab_size", "tokenizer.ggml.tokens", "tokenizer.ggml.token_type",
                            "tokenizer.ggml.merges", "tokenizer.ggml.bos_token_id", "tokenizer.ggml.add_bos_token", "tokenizer.chat_template"})
        EXPECT_EQ(cell("verdict", key), "equal") << key;
    EXPECT_EQ(cell("verdict || ' ' || note", "llama.attention.layer_norm_rms_epsilon"), "converted f64->f32: 9.999999747378752e-06 is the nearest f32");
    EXPECT_EQ(cell("source_path", "tokenizer.ggml.add_bos_token"), "tokenizer.json:post_processor.single");
    EXPECT_EQ(cell("source_path", "tokenizer.ggml.merges"), "tokenizer.json:model.merges");  // pairs, written "a b"
    EXPECT_EQ(cell("verdict || ' ' || note", "tokenizer.ggml.pre"), "converted tokenizer.json splits as llama.cpp's \"llama-bpe\" does");
    EXPECT_EQ(cell("gguf_value || ' / ' || source_value", "tokenizer.ggml.eos_token_id", "tokenizer_config.json:eos_token"),
              "509 \"<|eot_id|>\" / 509 \"<|eot_id|>\"");
    EXPECT_EQ(cell("verdict || ': ' || note", "tokenizer.ggml.eos_token_id", "generation_config.json:eos_token_id"),
              "converted: the GGUF kept 509 \"<|eot_id|>\" as eos_token_id; 501 \"<|end_of_text|>\", 508 \"<|eom_id|>\" end "
              "generation by llama.cpp's end-of-generation set");
    EXPECT_EQ(cell("verdict", "rope_freqs.weight", "config.json:rope_scaling.factor"), "converted");
    // The second table, after the tensor table.
    size_t tensors = r.out.find("Source tensors accounted for"), keys = r.out.find("llama.context_length");
    ASSERT_NE(keys, std::string::npos) << r.out;
    EXPECT_LT(tensors, keys);
}

TEST_F(MetadataAudit, EachMetadataBugIsCaughtWithItsMessage) {
    struct Case {
        MetadataDefect defect;
        int exit_code;
        std::string line;
    };
    const std::vector<Case> cases{
        {MetadataDefect::wrong_eos, 1,
         "FAIL tokenizer.ggml.eos_token_id (tokenizer_config.json:eos_token): differs: GGUF 501 \"<|end_of_text|>\", source 509 \"<|eot_id|>\""},
        {MetadataDefect::missing_eos, 1,
         "FAIL tokenizer.ggml.eos_token_id (tokenizer_config.json:eos_token): missing: GGUF none, source 509 \"<|eot_id|>\""},
        {MetadataDefect::missing_chat_template, 1,
         "FAIL tokenizer.chat_template (tokenizer_config.json:chat_template): missing: GGUF none, source \"{{- bos_token }}\\n"},
        {MetadataDefect::stale_chat_template, 1,
         "FAIL tokenizer.chat_template (tokenizer_config.json:chat_template): differs: GGUF \"{{- bos_token }}\\n"},
        {MetadataDefect::lost_rope_scaling, 1,
         "FAIL rope_freqs.weight (config.json:rope_scaling.factor): missing: GGUF none, source 8.0; the converter writes "
         "rope_freqs.weight for llama3 scaling; without it RoPE runs unscaled"},
        {MetadataDefect::wrong_context_length, 1,
         "FAIL llama.context_length (config.json:max_position_embeddings): differs: GGUF 8192, source 131072"},
        {MetadataDefect::rounded_rms_eps, 0,
         "warn llama.attention.layer_norm_rms_epsilon (config.json:rms_norm_eps): differs: GGUF 1.001358e-05, source 1e-05; "
         "the converter stores float32(1e-05) = 9.999999747378752e-06, the GGUF holds 1.0013580322265625e-05"},
        {MetadataDefect::vocab_without_added, 1,
         "warn tokenizer.ggml.tokens (tokenizer.json:model.vocab + added_tokens): differs: GGUF 500 × string"},
        // ... and without their texts, two of generation_config.json's EOS ids no longer end generation.
        {MetadataDefect::vocab_without_added, 1,
         "FAIL tokenizer.ggml.eos_token_id (generation_config.json:eos_token_id): differs: GGUF 509, source [501,508,509]; the GGUF "
         "kept 509 as eos_token_id; 501, 508 would not end generation: not the eos_token_id, not in eos_token_ids, not an "
         "end-of-generation token"},
        {MetadataDefect::wrong_pre_tokenizer, 0,
         "warn tokenizer.ggml.pre (tokenizer.json:pre_tokenizer): differs: GGUF \"qwen2\", source \"(?i:'s|'t|'re|'ve|'m|'ll|'d)|"},
    };
    for (const auto& c : cases) {
        auto r = audit(c.defect);
        EXPECT_EQ(r.exit_code, c.exit_code) << c.line << "\n" << r.out << r.err;
        EXPECT_NE(r.out.find(c.line), std::string::npos) << c.line << "\n" << r.out;
        EXPECT_EQ(count("effect = 'fail'") != "0", c.exit_code == 1) << c.line;
    }
}

TEST_F(MetadataAudit, TheFirstDifferenceIsNamed) {
    audit(MetadataDefect::vocab_without_added);
    EXPECT_EQ(cell("note", "tokenizer.ggml.tokens"),
              "GGUF has 500, the source 512; first difference at index 500: GGUF none, source \"<|begin_of_text|>\"; added tokens "
              "with normalized=false are taken as transformers' encode+decode leaves them: unchanged");
    EXPECT_EQ(cell("verdict || ' ' || effect", "llama.vocab_size"), "differs warn");
    audit(MetadataDefect::stale_chat_template);
    EXPECT_NE(cell("note", "tokenizer.chat_template").find("first difference at byte"), std::string::npos);
    audit(MetadataDefect::wrong_pre_tokenizer);
    EXPECT_EQ(cell("note", "tokenizer.ggml.pre"), "tokenizer.json splits as llama.cpp's \"llama3\" does, not as \"qwen2\"");
}

// llama.cpp's convert_hf_to_gguf.py on a SentencePiece checkpoint (PROVENANCE.md): every key with a source
// comes out equal or converted, the tokenizer read from tokenizer.model by libsentencepiece.
TEST(MetadataAuditRealConverter, EveryKeyOfTinyBf16IsEqualOrConverted) {
    test::TempDir tmp;
    const std::string db = (tmp / "a.db").string();
    auto r = test::run_modelcat("audit --db " + db + " " + (kLlamaCpp / "gguf/tiny-BF16.gguf").string() + " " +
                                (kLlamaCpp / "checkpoint").string());
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    SQLite::Database d(db);
    EXPECT_EQ(d.execAndGet("SELECT count(*) FROM audit_metadata WHERE verdict NOT IN ('equal', 'converted')").getInt(), 0);
    std::map<std::string, std::string> verdicts;
    SQLite::Statement st(d, "SELECT key, group_concat(verdict, ',') FROM audit_metadata GROUP BY key");
    while (st.executeStep()) verdicts[st.getColumn(0).getString()] = st.getColumn(1).getString();
    const std::map<std::string, std::string> expected{
        {"llama.block_count", "equal"}, {"llama.context_length", "equal"}, {"llama.embedding_length", "equal"},
        {"llama.feed_forward_length", "equal"}, {"llama.attention.head_count", "equal"}, {"llama.attention.head_count_kv", "equal"},
        {"llama.attention.layer_norm_rms_epsilon", "converted"}, {"llama.attention.key_length", "equal"},
        {"llama.attention.value_length", "equal"}, {"llama.vocab_size", "equal"}, {"llama.rope.dimension_count", "equal"},
        {"llama.rope.freq_base", "equal"}, {"llama.rope.scaling.type", "converted"},
        {"rope_freqs.weight", "converted,converted,converted,converted"}, {"tokenizer.ggml.model", "converted"},
        {"tokenizer.ggml.pre", "converted"}, {"tokenizer.ggml.tokens", "equal"}, {"tokenizer.ggml.token_type", "equal"},
        {"tokenizer.ggml.scores", "equal"}, {"tokenizer.ggml.bos_token_id", "equal,equal"}, {"tokenizer.ggml.eos_token_id", "equal,equal"},
        {"tokenizer.ggml.add_bos_token", "equal"}, {"tokenizer.ggml.add_eos_token", "equal"}};
    EXPECT_EQ(verdicts, expected);
    EXPECT_EQ(d.execAndGet("SELECT source_path FROM audit_metadata WHERE key = 'tokenizer.ggml.tokens'").getString(), "tokenizer.model");
}

// The audit's parse keeps the tokenizer arrays' values; the crawl's does not, and a kept array whose
// JSON outgrows its budget goes on as its hash only.
TEST(MetadataAuditParse, KeptArraysHoldTheirValuesUnderABudget) {
    kit::GgufWriter w(3);
    std::vector<std::string> tokens;
    for (int i = 0; i < 1000; ++i) tokens.push_back("tok" + std::to_string(i));
    w.add_kv("tokenizer.ggml.tokens", kit::GgufValue::string_array(tokens));
    w.add_kv("other.list", kit::GgufValue::string_array(tokens));
    std::vector<uint8_t> bytes = w.header();
    auto parse = [&](model::Limits limits) { return std::get<model::FileHeader>(format::parse_gguf(bytes, bytes.size(), limits)); };
    auto json_of = [](const model::FileHeader& h, size_t i) { return std::get<model::ArraySummary>(h.metadata[i].value).json; };
    model::FileHeader crawl = parse({});
    EXPECT_FALSE(json_of(crawl, 0));
    model::Limits audit;
    audit.kept_arrays = audit::metadata_kept_arrays(), audit.kept_json_bytes = audit::kKeptArrayJsonBytes;
    model::FileHeader kept = parse(audit);
    ASSERT_TRUE(json_of(kept, 0));
    EXPECT_TRUE(json_of(kept, 0)->starts_with("[\"tok0\",\"tok1\","));
    EXPECT_FALSE(json_of(kept, 1));  // not a key the audit asked for
    EXPECT_EQ(std::get<model::ArraySummary>(kept.metadata[0].value).content_hash,
              std::get<model::ArraySummary>(crawl.metadata[0].value).content_hash);
    audit.kept_json_bytes = 100;
    model::FileHeader over = parse(audit);
    EXPECT_FALSE(json_of(over, 0));
    EXPECT_EQ(std::get<model::ArraySummary>(over.metadata[0].value).content_hash,
              std::get<model::ArraySummary>(crawl.metadata[0].value).content_hash);
}

// A tokenizer file the audit cannot read makes its rows not_checked with the reason, never equal.
TEST_F(MetadataAudit, UnreadableTokenizerFilesAreNotCheckedNeverEqual) {
    fs::path ckpt = dir_->path() / "no-tokenizer";
    kit::write_llama_checkpoint(ckpt, {});
    fs::remove(ckpt / "tokenizer.json");
    std::ofstream(ckpt / "tokenizer.model") << "not a protobuf";
    fs::path gguf = dir_->path() / "plain.gguf";
    kit::write_llama_conversion(gguf, {}, {});
    auto r = test::run_modelcat("audit --db " + db() + " " + gguf.string() + " " + ckpt.string());
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(cell("verdict", "tokenizer.ggml.tokens"), "not_checked");
    EXPECT_TRUE(cell("note", "tokenizer.ggml.tokens").starts_with("tokenizer.model is not a SentencePiece model: ")) << r.out;
    EXPECT_EQ(count("key LIKE 'tokenizer.ggml.%' AND verdict = 'equal' AND key NOT LIKE '%bos%' AND key NOT LIKE '%eos%'"), "0");
    fs::remove(ckpt / "tokenizer.model");
    r = test::run_modelcat("audit --db " + db() + " " + gguf.string() + " " + ckpt.string());
    EXPECT_EQ(cell("verdict || ': ' || note", "tokenizer.ggml.merges"),
              "not_checked: no tokenizer.model or tokenizer.json beside the checkpoint");
}

// The converter's rope scaling for yarn (qwen2: TextModel's keys only, no vocab_size), from the
// function itself over a parsed header: present it is equal, lost it fails.
TEST(MetadataAuditRope, YarnScalingIsWrittenAsItsKeys) {
    const std::string config = R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "num_hidden_layers": 2,
        "max_position_embeddings": 131072, "rope_theta": 1000000.0, "rms_norm_eps": 1e-06, "vocab_size": 10,
        "num_attention_heads": [4, 8], "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}})";
    audit::CheckpointTexts texts;
    texts.config.bytes = config;
    auto rows_for = [&](bool with_scaling) {
        kit::GgufWriter w(3);
        w.add_kv("general.architecture", kit::GgufValue::str("qwen2"));
        w.add_kv("qwen2.block_count", kit::GgufValue::u32(2));
        w.add_kv("qwen2.context_length", kit::GgufValue::u32(131072));
        w.add_kv("qwen2.attention.head_count", kit::GgufValue::array(kit::GgufType::u32, {kit::GgufValue::u32(4), kit::GgufValue::u32(8)}));
        w.add_kv("qwen2.rope.freq_base", kit::GgufValue::f32(1e6f));
        w.add_kv("qwen2.attention.layer_norm_rms_epsilon", kit::GgufValue::f32(1e-6f));
        if (with_scaling) {
            w.add_kv("qwen2.rope.scaling.type", kit::GgufValue::str("yarn"));
            w.add_kv("qwen2.rope.scaling.factor", kit::GgufValue::f32(4.0f));
            w.add_kv("qwen2.rope.scaling.original_context_length", kit::GgufValue::u32(32768));
        }
        std::map<std::string, std::string> out;
        for (const auto& m : audit::audit_metadata(kit::parse_header(w), texts))
            out[m.key] = std::string(model::verdict_name(m.verdict)) + (m.fails() ? " fail" : "");
        return out;
    };
    const std::map<std::string, std::string> right{
        {"qwen2.block_count", "equal"}, {"qwen2.context_length", "equal"}, {"qwen2.attention.head_count", "equal"},
        {"qwen2.rope.freq_base", "equal"}, {"qwen2.attention.layer_norm_rms_epsilon", "converted"},
        {"qwen2.rope.scaling.type", "equal"}, {"qwen2.rope.scaling.factor", "equal"},
        {"qwen2.rope.scaling.original_context_length", "equal"}};
    EXPECT_EQ(rows_for(true), right);
    auto lost = rows_for(false);
    EXPECT_EQ(lost["qwen2.rope.scaling.type"], "missing fail");
    EXPECT_EQ(lost["qwen2.rope.scaling.factor"], "missing fail");
    EXPECT_EQ(lost["qwen2.rope.scaling.original_context_length"], "missing fail");
}
