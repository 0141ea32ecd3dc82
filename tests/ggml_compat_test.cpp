// Would ggml's GGUF reader read it: one generated file per reason ggml refuses
// and modelcat accepts, a file it reads, and the real third-party files.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <set>

#include "kit/gguf_writer.hpp"
#include "model/ggml_compat.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufType;
using kit::GgufValue;
using kit::GgufWriter;

namespace {

constexpr uint32_t kF32 = 0, kQ4_0 = 2;

// Two F32 tensors of 32 bytes each: whole alignment units, so ggml's padded
// running offsets and data size hold unless a case breaks them.
GgufWriter base(uint32_t version = 3, kit::Endian endian = kit::Endian::little) {
    GgufWriter w(version, endian);
    w.add_kv("general.architecture", GgufValue::str("llama"));
    w.add_tensor("token_embd.weight", {8}, kF32);
    return w;
}

std::set<std::string> checks(const GgufWriter& w) {
    model::FileHeader h = kit::parse_header(w);
    std::set<std::string> out;
    for (const auto& r : model::ggml_refusals(h)) out.insert(r.check);
    return out;
}

using Checks = std::set<std::string>;

TEST(GgmlCompat, AFileGgmlReadsHasNoReason) {
    GgufWriter w = base();
    w.add_tensor("output.weight", {8}, kF32);
    EXPECT_EQ(checks(w), Checks{});
}

TEST(GgmlCompat, OneGeneratedFilePerReason) {
    EXPECT_EQ(checks(base(1)), Checks{"version"});
    EXPECT_EQ(checks(base(3, kit::Endian::big)), Checks{"byte_order"});
    EXPECT_EQ(checks(base(1, kit::Endian::big)), (Checks{"version", "byte_order"}));

    GgufWriter dup = base();
    dup.add_kv("general.architecture", GgufValue::str("llama"));
    EXPECT_EQ(checks(dup), Checks{"duplicate_key"});

    GgufWriter nested = base();
    nested.add_kv("x.nested", GgufValue::array(GgufType::array, {GgufValue::array(GgufType::u8, {GgufValue::u8(1)})}));
    EXPECT_EQ(checks(nested), Checks{"nested_array"});

    GgufWriter longest_ok = base();
    longest_ok.add_tensor(std::string(63, 'n'), {8}, kF32);
    EXPECT_EQ(checks(longest_ok), Checks{});
    GgufWriter too_long = base();
    too_long.add_tensor(std::string(64, 'n'), {8}, kF32);
    EXPECT_EQ(checks(too_long), Checks{"name_length"});

    GgufWriter nul_names = base();  // distinct to modelcat, the same C string to ggml
    nul_names.add_tensor(std::string("w\0a", 3), {8}, kF32);
    nul_names.add_tensor(std::string("w\0b", 3), {8}, kF32);
    EXPECT_EQ(checks(nul_names), Checks{"duplicate_name"});

    GgufWriter unknown = base();
    unknown.add_tensor("future.weight", {8}, 77, 32);
    EXPECT_EQ(checks(unknown), Checks{"type_id"});
    GgufWriter removed = base();
    removed.add_tensor("old.weight", {32}, 4, 32);  // Q4_2, removed from ggml
    EXPECT_EQ(checks(removed), Checks{"type_id"});

    GgufWriter rows = base();  // 64 elements = 2 whole Q4_0 blocks, but rows of 16
    rows.add_tensor("rows.weight", {16, 4}, kQ4_0);
    EXPECT_EQ(checks(rows), Checks{"row_blocks"});

    GgufWriter gap = base();  // a tensor 32 bytes past where ggml expects it
    gap.add_tensor_at("gap.weight", {8}, kF32, 64);
    EXPECT_EQ(checks(gap), Checks{"offset"});

    GgufWriter unpadded = base();  // the last tensor's 12 bytes, not padded to 32
    unpadded.add_tensor("bias", {3}, kF32);
    EXPECT_EQ(checks(unpadded), Checks{"data_size"});
}

// A count ggml refuses cannot have its data in a real file: checked on a header.
TEST(GgmlCompat, ElementCountsNearTwoToTheSixtyThree) {
    model::FileHeader h;
    h.version = 3;
    h.alignment = 32;
    model::TensorInfo t;
    t.name = "huge";
    t.type_id = 24;  // I8
    t.dims = {(uint64_t{1} << 62) - 1, 2};  // 2^63 - 2 elements: an int64, but INT64_MAX / 2 <= ne[0]
    t.n_elements = (uint64_t{1} << 63) - 2;
    t.expected_bytes = t.n_elements;
    h.tensors.push_back(t);
    auto r = model::ggml_refusals(h);
    ASSERT_FALSE(r.empty());
    EXPECT_EQ(r[0].check, "element_count");
    h.tensors[0].dims = {uint64_t{1} << 20, 4};
    h.tensors[0].n_elements = h.tensors[0].expected_bytes.emplace(uint64_t{1} << 22);
    h.file_size = h.data_start + (uint64_t{1} << 22);
    EXPECT_TRUE(model::ggml_refusals(h).empty());
}

// The expectation on ../shared/fixtures/real: ggml reads all but the
// six iree files, which give general.architecture twice.
TEST(GgmlCompat, RealFilesThroughTheView) {
    test::TempDir tmp;
    std::string db = (tmp / "c.db").string();
    test::CommandResult r = test::run_modelcat("crawl -q --db " + db + " " + test::fixtures_dir().string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    SQLite::Database d(db);
    SQLite::Statement st(d, "SELECT name, readable, coalesce(reasons, '') FROM ggml_compat ORDER BY name");
    std::map<std::string, std::pair<int, std::string>> rows;
    while (st.executeStep()) rows[st.getColumn(0).getString()] = {st.getColumn(1).getInt(), st.getColumn(2).getString()};
    ASSERT_EQ(rows.size(), 15u);
    int refused = 0;
    for (const auto& [name, row] : rows) {
        if (name.starts_with("iree-")) {
            ++refused;
            EXPECT_EQ(row.first, 0) << name;
            EXPECT_EQ(row.second, "duplicate key 'general.architecture': ggml refuses a key given twice") << name;
        } else {
            EXPECT_EQ(row.first, 1) << name << ": " << row.second;
            EXPECT_TRUE(name.starts_with("ggml-vocab-") || name == "gguf-py-little-endian-v3" ||
                        name == "llama-2-tiny-random" || name == "llamacpp-gguf-example-dummy" || name == "superpoint")
                << name;
        }
    }
    EXPECT_EQ(refused, 6);
    SQLite::Statement files(d, "SELECT count(*) FROM files WHERE format = 'gguf' AND ggml_refusals IS NULL");
    files.executeStep();
    EXPECT_EQ(files.getColumn(0).getInt(), 0);
}

// Each reason reaches the catalogue: one row per reason, the view's verdict per model.
TEST(GgmlCompat, GeneratedFilesThroughTheView) {
    test::TempDir tmp;
    base(1).write(tmp / "v1.gguf");
    GgufWriter rows = base(3, kit::Endian::big);
    rows.add_tensor("rows.weight", {16, 4}, kQ4_0);
    rows.write(tmp / "big-endian-rows.gguf");
    GgufWriter ok = base();
    ok.add_tensor("output.weight", {8}, kF32);
    ok.write(tmp / "fine.gguf");
    std::string db = (tmp / "c.db").string();
    test::CommandResult r = test::run_modelcat("crawl -q --db " + db + " " + tmp.path().string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::sql_value(db, "SELECT readable || '|' || coalesce(reasons, '') FROM ggml_compat WHERE name = 'fine'"), "1|");
    EXPECT_EQ(test::sql_value(db, "SELECT readable || '|' || reasons FROM ggml_compat WHERE name = 'v1'"),
              "0|GGUF version 1: ggml reads versions 2 and 3 only");
    EXPECT_EQ(test::sql_value(db, "SELECT group_concat(\"check\", ',') FROM (SELECT \"check\" FROM ggml_refusals r JOIN models m USING "
                  "(model_id) WHERE m.name = 'big-endian-rows' ORDER BY seq)"),
              "byte_order,row_blocks");
    EXPECT_EQ(test::sql_value(db, "SELECT reasons FROM ggml_compat WHERE name = 'big-endian-rows'"),
              "big-endian file: ggml reads the host's byte order (its version field reads as 50331648)\n"
              "tensor 'rows.weight': ne[0] = 16 is not a multiple of the Q4_0 block size 32");
}

}  // namespace
