// The audit on llama.cpp's own output (../shared/fixtures/llama-cpp): every
// file its converter and llama-quantize wrote passes against the checkpoint,
// judged against the source's own values; defects planted in copies of those
// files (a value that overflowed to infinity, a flipped exponent bit in one
// block's scale) fail, naming the element or the block.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

#include "dequant/dequant.hpp"
#include "format/gguf.hpp"
#include "model/ggml_types.hpp"
#include "format/safetensors.hpp"
#include "kit/kit_quantize.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

fs::path fixtures() { return test::llama_cpp_fixtures_dir(); }
fs::path checkpoint() { return fixtures() / "checkpoint"; }

// A fixture file's bytes, to copy with a change planted.
struct Planted {
    std::vector<uint8_t> bytes;
    model::FileHeader header;

    explicit Planted(const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
        auto parsed = p.extension() == ".gguf" ? format::parse_gguf(bytes, bytes.size()) : format::parse_safetensors(bytes, bytes.size());
        header = std::get<model::FileHeader>(parsed);
    }
    const model::TensorInfo& tensor(const std::string& name) const {
        for (const auto& t : header.tensors)
            if (t.name == name) return t;
        throw std::runtime_error("no tensor " + name);
    }
    uint8_t* data(const std::string& name) { return bytes.data() + header.data_start + tensor(name).offset; }
    void write(const fs::path& p) const {
        std::ofstream out(p, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
};

void put_u16(uint8_t* p, uint16_t v) { p[0] = static_cast<uint8_t>(v), p[1] = static_cast<uint8_t>(v >> 8); }
uint16_t get_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

class LlamaCppAudit : public ::testing::Test {
protected:
    static void SetUpTestSuite() { dir_ = new test::TempDir(); }
    static void TearDownTestSuite() { delete dir_; }
    static std::string db() { return (dir_->path() / "audits.db").string(); }
    static test::CommandResult audit(const fs::path& gguf, const fs::path& source = checkpoint()) {
        return test::run_modelcat("audit --db " + db() + " " + gguf.string() + " " + source.string());
    }
    static std::string scalar(const std::string& sql) {
        SQLite::Database d(db());
        SQLite::Statement st(d, sql);
        st.bind(1, d.execAndGet("SELECT max(audit_id) FROM audits").getInt64());
        return st.executeStep() ? st.getColumn(0).getString() : "<no row>";
    }
    static test::TempDir* dir_;
};
test::TempDir* LlamaCppAudit::dir_ = nullptr;

}  // namespace

TEST_F(LlamaCppAudit, EveryFileOfTheRealQuantizerPasses) {
    std::set<std::string> types;
    for (const auto& entry : fs::directory_iterator(fixtures() / "gguf")) {
        auto r = audit(entry.path());
        EXPECT_EQ(r.exit_code, 0) << entry.path().filename() << "\n" << r.out << r.err;
        EXPECT_EQ(scalar("SELECT count(*) FROM audit_tensors WHERE audit_id = ? AND verdict NOT IN ('exact', 'within_tolerance', 'generated_ok')"),
                  "0") << entry.path().filename();
        SQLite::Database d(db());
        SQLite::Statement st(d, "SELECT DISTINCT gguf_type FROM audit_tensors WHERE audit_id = (SELECT max(audit_id) FROM audits)");
        while (st.executeStep()) types.insert(st.getColumn(0).getString());
    }
    EXPECT_EQ(types, (std::set<std::string>{"BF16", "F16", "F32", "IQ3_S", "IQ4_NL", "IQ4_XS", "Q1_0", "Q2_0", "Q2_K", "Q3_K",
                                            "Q4_0", "Q4_1", "Q4_K", "Q5_0", "Q5_1", "Q5_K", "Q6_K", "Q8_0", "TQ1_0", "TQ2_0"}));
}

// tiny-F16.gguf holds the BF16 checkpoint rounded to F16: exact, yet the values
// below F16's normal range lost bits, and the error columns say how much.
// gguf-split's three shards are one GGUF: audited whole whichever shard is named (the first alone
// accounted for 19 of the 57 source tensors), recorded as the set's first file.
TEST_F(LlamaCppAudit, ASplitSetIsAuditedWhole) {
    const fs::path split = fixtures() / "split";
    for (const char* shard : {"tiny-split-Q4_K_M-00001-of-00003.gguf", "tiny-split-Q4_K_M-00002-of-00003.gguf"}) {
        SCOPED_TRACE(shard);
        test::CommandResult r = audit(split / shard);
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
        EXPECT_EQ(scalar("SELECT source_tensors || ' ' || unmatched_source || ' ' || unmatched_gguf || ' ' || verdict FROM audits"
                         " WHERE audit_id = ?"),
                  "57 0 0 pass");
        EXPECT_EQ(scalar("SELECT gguf_location FROM audits WHERE audit_id = ?"),
                  (split / "tiny-split-Q4_K_M-00001-of-00003.gguf").string());
    }
}

TEST_F(LlamaCppAudit, NarrowedValuesAreMeasuredAgainstTheSource) {
    auto r = audit(fixtures() / "gguf" / "tiny-F16.gguf");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(scalar("SELECT count(*) || ' ' || sum(verdict = 'exact') FROM audit_tensors WHERE audit_id = ? AND transform LIKE '%bf16->f16'"),
              "44 44");
    double max_error = std::stod(scalar("SELECT max(max_abs_error) FROM audit_tensors WHERE audit_id = ? AND transform LIKE '%bf16->f16'"));
    EXPECT_GT(max_error, 0);
    EXPECT_LE(max_error, std::ldexp(1.0, -25));  // half a unit of F16's subnormal spacing, 2^-24
    EXPECT_NE(r.out.find("Narrowed values (F32/BF16 to BF16/F16)        Rounded to nearest even (44 tensors"), std::string::npos) << r.out;
}

// The converter with --outtype f16 turns a BF16 value of 1e5 into +inf: the rounding rule, yet a
// finite value lost. Planted in copies: the checkpoint's blk.1 v_proj element (5, 7), and inf in the GGUF.
TEST_F(LlamaCppAudit, AValueThatOverflowedToInfinityFailsNamingIt) {
    fs::path ckpt = dir_->path() / "overflow-checkpoint";
    fs::copy(checkpoint(), ckpt);
    const std::string source = "model.layers.1.self_attn.v_proj.weight";
    std::string shard;
    for (const auto& f : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) {
        Planted p(ckpt / f);
        for (const auto& t : p.header.tensors)
            if (t.name == source) shard = f;
    }
    ASSERT_FALSE(shard.empty());
    Planted st(ckpt / shard);
    uint64_t cols = st.tensor(source).dims[1];
    put_u16(st.data(source) + 2 * (5 * cols + 7), dequant::float_to_bf16(1e5f));
    st.write(ckpt / shard);
    Planted gguf(fixtures() / "gguf" / "tiny-F16.gguf");
    put_u16(gguf.data("blk.1.attn_v.weight") + 2 * (5 * cols + 7), 0x7C00);  // what RNE makes of 99840: +inf
    gguf.write(dir_->path() / "overflow.gguf");
    auto r = audit(dir_->path() / "overflow.gguf", ckpt);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("FAIL blk.1.attn_v.weight (source model.layers.1.self_attn.v_proj.weight): mismatch at source row 5, column 7: "
                         "1 finite source value became inf or NaN; first at row 5, column 7: source 99840, GGUF inf"),
              std::string::npos) << r.out;
    EXPECT_EQ(scalar("SELECT mismatches || ' ' || first_mismatch_row || ' ' || first_mismatch_col FROM audit_tensors"
                     " WHERE audit_id = ? AND verdict = 'mismatch'"), "1 5 7");
    EXPECT_EQ(scalar("SELECT count(*) FROM audit_tensors WHERE audit_id = ? AND verdict = 'mismatch'"), "1");
}

namespace {

// A fixture file whose blk.0.ffn_up.weight is of its type, and which exponent bit of each of
// the block's F16 scales (d, and dmin or m: kit::f16_scale_fields) to flip: bit 0, in a block
// where it is set if there is one (the scale halves: the defect the whole-tensor figures miss);
// bit 1 where it is clear for the 1- and 2-bit types (x4: their clean blocks' NMSE reaches
// 0.8-0.93, so a halved or doubled scale stays within their noise).
struct ScaleFlip {
    const char* file;
    int exponent_bit;
};
constexpr ScaleFlip kFlips[] = {
    {"tiny-Q8_0.gguf", 0},  {"tiny-Q6_K.gguf", 0},   {"tiny-Q5_K_S.gguf", 0}, {"tiny-Q4_K_M-pure.gguf", 0},
    {"tiny-Q3_K_S.gguf", 0}, {"tiny-Q3_K_M.gguf", 0}, {"tiny-Q2_K.gguf", 0},   {"tiny-Q4_0.gguf", 0},
    {"tiny-Q4_1.gguf", 0},  {"tiny-Q5_0.gguf", 0},   {"tiny-Q5_1.gguf", 0},   {"tiny-IQ4_NL.gguf", 0},
    {"tiny-IQ4_XS.gguf", 0}, {"tiny-IQ3_S.gguf", 0},  {"tiny-TQ1_0.gguf", 1},  {"tiny-TQ2_0.gguf", 1},
    {"tiny-Q1_0.gguf", 1},  {"tiny-Q2_0.gguf", 1},
};

}  // namespace

// Flips `bit` of the F16 scale at `field` in one block of `tensor`: in the first block from a
// third of the way in whose bit is `set` (else in that block, whatever its bit). Returns the block.
uint64_t flip_scale_bit(Planted& gguf, const std::string& tensor, uint32_t field, uint16_t bit, bool set) {
    const model::TensorInfo& t = gguf.tensor(tensor);
    const model::GgmlType& type = *model::find_ggml_type(*t.type_id);
    uint8_t* data = gguf.data(tensor);
    uint64_t blocks = t.n_elements / type.block_size, k = blocks / 3;
    for (uint64_t i = 0; i < blocks; ++i)
        if (((get_u16(data + (blocks / 3 + i) % blocks * type.type_size + field) & bit) != 0) == set) {
            k = (blocks / 3 + i) % blocks;
            break;
        }
    uint8_t* scale = data + k * type.type_size + field;
    put_u16(scale, get_u16(scale) ^ bit);
    return k;
}

TEST_F(LlamaCppAudit, AFlippedExponentBitInOneBlocksScaleFailsNamingTheBlock) {
    const std::string tensor = "blk.0.ffn_up.weight";  // 512 rows of 256, not permuted: GGUF row = source row
    int planted = 0;
    for (const ScaleFlip& f : kFlips) {
        const Planted original(fixtures() / "gguf" / f.file);
        const model::GgmlType& type = *model::find_ggml_type(*original.tensor(tensor).type_id);
        for (uint32_t field : kit::f16_scale_fields(type.id)) {
            SCOPED_TRACE(std::string(f.file) + " field " + std::to_string(field));
            Planted gguf = original;
            uint64_t k = flip_scale_bit(gguf, tensor, field, static_cast<uint16_t>(1 << (10 + f.exponent_bit)), f.exponent_bit == 0);
            fs::path path = dir_->path() / ("flip-" + std::string(f.file));
            gguf.write(path);
            auto r = audit(path);
            uint64_t row = k * type.block_size / 256, col = k * type.block_size % 256;
            EXPECT_EQ(r.exit_code, 1) << r.out;
            EXPECT_NE(r.out.find("FAIL " + tensor + " (source model.layers.0.mlp.up_proj.weight): mismatch at source row " +
                                 std::to_string(row) + ", column " + std::to_string(col) + ": "),
                      std::string::npos) << r.out;
            EXPECT_NE(r.out.find("the block of columns " + std::to_string(col) + "-" + std::to_string(col + type.block_size - 1) +
                                 " has NMSE"),
                      std::string::npos) << r.out;
            EXPECT_EQ(scalar("SELECT count(*) FROM audit_tensors WHERE audit_id = ? AND verdict = 'mismatch'"), "1");
            ++planted;
        }
    }
    EXPECT_EQ(planted, 23);
}
