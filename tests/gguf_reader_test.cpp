// The GGUF reader against files written by the test kit: every version, both
// byte orders, every value type, prefixes of every length.
#include <gtest/gtest.h>

#include <cmath>

#include "format/gguf.hpp"
#include "format/parse_result.hpp"
#include "kit/gguf_writer.hpp"
#include "model/content_hash.hpp"
#include "model/error.hpp"

using namespace modelcat;
using kit::GgufType;
using kit::GgufValue;
using kit::GgufWriter;

namespace {

const model::MetadataEntry& entry(const model::FileHeader& h, std::string_view key) {
    for (const auto& e : h.metadata)
        if (e.key == key) return e;
    throw std::runtime_error("no key " + std::string(key));
}

// A writer that uses every value type, nested arrays and four tensor types.
GgufWriter every_value_type(uint32_t version, kit::Endian endian, uint32_t alignment) {
    GgufWriter w(version, endian);
    w.set_alignment(alignment);
    w.add_kv("general.architecture", GgufValue::str("llama"));
    if (alignment != 32) w.add_kv("general.alignment", GgufValue::u32(alignment));
    w.add_kv("v.u8", GgufValue::u8(200));
    w.add_kv("v.i8", GgufValue::i8(-100));
    w.add_kv("v.u16", GgufValue::u16(60000));
    w.add_kv("v.i16", GgufValue::i16(-30000));
    w.add_kv("v.u32", GgufValue::u32(4000000000u));
    w.add_kv("v.i32", GgufValue::i32(-2000000000));
    w.add_kv("v.f32", GgufValue::f32(0.1f));
    w.add_kv("v.bool", GgufValue::boolean(true));
    w.add_kv("v.str", GgufValue::str("héllo \"world\"\n"));
    w.add_kv("v.u64", GgufValue::u64(18446744073709551615ull));
    w.add_kv("v.i64", GgufValue::i64(-9000000000000000000ll));
    w.add_kv("v.f64", GgufValue::f64(-2.5e-300));
    w.add_kv("a.i16", GgufValue::array(GgufType::i16, {GgufValue::i16(1), GgufValue::i16(-2), GgufValue::i16(3)}));
    w.add_kv("a.f32", GgufValue::array(GgufType::f32, {GgufValue::f32(1.5f), GgufValue::f32(-0.25f)}));
    w.add_kv("a.bool", GgufValue::array(GgufType::boolean, {GgufValue::boolean(false), GgufValue::boolean(true)}));
    w.add_kv("a.u64", GgufValue::array(GgufType::u64, {GgufValue::u64(1ull << 40)}));
    w.add_kv("a.str", GgufValue::string_array({"a", "", "ccc"}));
    w.add_kv("a.nested", GgufValue::array(GgufType::array,
                                          {GgufValue::array(GgufType::u8, {GgufValue::u8(1), GgufValue::u8(2)}),
                                           GgufValue::array(GgufType::u8, {})}));
    std::vector<std::string> many(1000);
    for (size_t i = 0; i < many.size(); ++i) many[i] = "tok" + std::to_string(i);
    w.add_kv("a.big", GgufValue::string_array(many));
    w.add_tensor("token_embd.weight", {256, 10}, 12);      // Q4_K
    w.add_tensor("blk.0.attn_q.weight", {64, 3}, 8);       // Q8_0
    w.add_tensor("blk.0.attn_norm.weight", {7}, 0);        // F32, 28 bytes: padded gap
    w.add_tensor("output.weight", {256, 2}, 77, 999);      // unknown type, size given
    return w;
}

struct Variant {
    uint32_t version;
    kit::Endian endian;
    uint32_t alignment;
};

class GgufRoundTrip : public ::testing::TestWithParam<Variant> {};

TEST_P(GgufRoundTrip, EveryFieldReadsBack) {
    const Variant v = GetParam();
    GgufWriter w = every_value_type(v.version, v.endian, v.alignment);
    model::FileHeader h = kit::parse_header(w);

    EXPECT_EQ(h.version, v.version);
    EXPECT_EQ(h.big_endian, v.endian == kit::Endian::big);
    EXPECT_EQ(h.alignment, v.alignment);
    EXPECT_EQ(h.data_start, w.data_start());
    EXPECT_EQ(h.header_bytes, w.data_start());
    EXPECT_EQ(h.declared_kv_count, w.kv_count());
    ASSERT_EQ(h.metadata.size(), w.kv_count());
    for (size_t i = 0; i < h.metadata.size(); ++i) EXPECT_EQ(h.metadata[i].offset, w.kv_offset(i));

    EXPECT_EQ(std::get<uint64_t>(entry(h, "v.u8").value), 200u);
    EXPECT_EQ(std::get<int64_t>(entry(h, "v.i8").value), -100);
    EXPECT_EQ(std::get<uint64_t>(entry(h, "v.u16").value), 60000u);
    EXPECT_EQ(std::get<int64_t>(entry(h, "v.i16").value), -30000);
    EXPECT_EQ(std::get<uint64_t>(entry(h, "v.u32").value), 4000000000u);
    EXPECT_EQ(std::get<int64_t>(entry(h, "v.i32").value), -2000000000);
    EXPECT_EQ(std::get<double>(entry(h, "v.f32").value), double(0.1f));
    EXPECT_EQ(std::get<bool>(entry(h, "v.bool").value), true);
    EXPECT_EQ(std::get<std::string>(entry(h, "v.str").value), "héllo \"world\"\n");
    EXPECT_EQ(std::get<uint64_t>(entry(h, "v.u64").value), 18446744073709551615ull);
    EXPECT_EQ(std::get<int64_t>(entry(h, "v.i64").value), -9000000000000000000ll);
    EXPECT_EQ(std::get<double>(entry(h, "v.f64").value), -2.5e-300);
    EXPECT_EQ(entry(h, "v.u8").type, model::ValueType::u8);
    EXPECT_EQ(entry(h, "v.f64").type, model::ValueType::f64);

    auto arr = [&](std::string_view k) { return std::get<model::ArraySummary>(entry(h, k).value); };
    EXPECT_EQ(arr("a.i16").json, "[1,-2,3]");
    EXPECT_EQ(arr("a.i16").element_type, model::ValueType::i16);
    EXPECT_EQ(arr("a.i16").byte_size, 6u);
    EXPECT_EQ(arr("a.f32").json, "[1.5,-0.25]");
    EXPECT_EQ(arr("a.bool").json, "[false,true]");
    EXPECT_EQ(arr("a.u64").json, "[1099511627776]");
    EXPECT_EQ(arr("a.str").json, R"(["a","","ccc"])");
    EXPECT_EQ(arr("a.nested").json, "[[1,2],[]]");
    EXPECT_EQ(arr("a.nested").length, 2u);
    EXPECT_EQ(arr("a.big").length, 1000u);
    EXPECT_FALSE(arr("a.big").json.has_value());  // over the JSON cap: length + size + hash only

    ASSERT_EQ(h.tensors.size(), 4u);
    const auto& wt = w.tensors();
    for (size_t i = 0; i < 4; ++i) {
        SCOPED_TRACE(wt[i].name);
        EXPECT_EQ(h.tensors[i].name, wt[i].name);
        EXPECT_EQ(h.tensors[i].dims, wt[i].dims);
        EXPECT_EQ(h.tensors[i].type_id, wt[i].type);
        EXPECT_EQ(h.tensors[i].offset, wt[i].offset);
        EXPECT_EQ(h.tensors[i].info_offset, w.tensor_info_offset(i));
    }
    EXPECT_EQ(h.tensors[0].type_name, "Q4_K");
    EXPECT_EQ(h.tensors[0].bytes, (10u * 144 + v.alignment - 1) / v.alignment * v.alignment);  // gap includes padding
    EXPECT_EQ(h.tensors[0].expected_bytes, 10u * 144);
    EXPECT_EQ(h.tensors[1].bytes, h.tensors[2].offset - h.tensors[1].offset);
    EXPECT_EQ(h.tensors[2].expected_bytes, 28u);
    EXPECT_EQ(h.tensors[2].bytes, (28 + v.alignment - 1) / v.alignment * v.alignment);  // gap includes padding
    EXPECT_EQ(h.tensors[3].type_name, "type_77");
    EXPECT_FALSE(h.tensors[3].expected_bytes.has_value());
    EXPECT_EQ(h.tensors[3].bytes, 999u);  // measured to the end of the file
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_NE(h.warnings[0].message.find("unknown ggml type id 77"), std::string::npos);
}

TEST_P(GgufRoundTrip, HashesIgnoreVersionAndByteOrder) {
    const Variant v = GetParam();
    model::FileHeader h = kit::parse_header(every_value_type(v.version, v.endian, v.alignment));
    model::FileHeader ref = kit::parse_header(every_value_type(3, kit::Endian::little, v.alignment));
    for (const char* k : {"a.i16", "a.f32", "a.str", "a.nested", "a.big"}) {
        SCOPED_TRACE(k);
        EXPECT_EQ(std::get<model::ArraySummary>(entry(h, k).value).content_hash,
                  std::get<model::ArraySummary>(entry(ref, k).value).content_hash);
    }
    EXPECT_NE(std::get<model::ArraySummary>(entry(h, "a.i16").value).content_hash,
              std::get<model::ArraySummary>(entry(h, "a.str").value).content_hash);
}

// The digests catalogues hold (metadata.array_hash), the same in every version and byte order:
// a change would make every stored catalogue disagree with the next crawl (see stored_hashes_test).
TEST_P(GgufRoundTrip, HashesAreTheStoredValues) {
    const Variant v = GetParam();
    model::FileHeader h = kit::parse_header(every_value_type(v.version, v.endian, v.alignment));
    const std::pair<const char*, const char*> expected[] = {
        {"a.i16", "80510e1d210f6a72"}, {"a.f32", "ae62a49497f10ded"}, {"a.bool", "3b4fb339a96e4cea"},
        {"a.u64", "a33a7bcea5ffa526"}, {"a.str", "3183c89afdaa9956"}, {"a.nested", "830a11af2b6f92d5"},
        {"a.big", "ffe6fbb5d5cdb403"}};
    for (const auto& [key, hash] : expected)
        EXPECT_EQ(model::hex64(std::get<model::ArraySummary>(entry(h, key).value).content_hash), hash) << key;
}

// Every key, value and tensor, field by field.
void expect_same_header(const model::FileHeader& h, const model::FileHeader& ref) {
    ASSERT_EQ(h.metadata.size(), ref.metadata.size());
    for (size_t i = 0; i < h.metadata.size(); ++i) {
        SCOPED_TRACE(ref.metadata[i].key);
        EXPECT_EQ(h.metadata[i].key, ref.metadata[i].key);
        EXPECT_EQ(h.metadata[i].type, ref.metadata[i].type);
        EXPECT_EQ(h.metadata[i].offset, ref.metadata[i].offset);
        EXPECT_TRUE(h.metadata[i].value == ref.metadata[i].value);
    }
    ASSERT_EQ(h.tensors.size(), ref.tensors.size());
    for (size_t i = 0; i < h.tensors.size(); ++i) {
        SCOPED_TRACE(ref.tensors[i].name);
        EXPECT_EQ(h.tensors[i].name, ref.tensors[i].name);
        EXPECT_EQ(h.tensors[i].dims, ref.tensors[i].dims);
        EXPECT_EQ(h.tensors[i].type_id, ref.tensors[i].type_id);
        EXPECT_EQ(h.tensors[i].offset, ref.tensors[i].offset);
        EXPECT_EQ(h.tensors[i].bytes, ref.tensors[i].bytes);
        EXPECT_EQ(h.tensors[i].info_offset, ref.tensors[i].info_offset);
    }
    EXPECT_EQ(h.data_start, ref.data_start);
    EXPECT_EQ(h.header_bytes, ref.header_bytes);
    EXPECT_EQ(h.alignment, ref.alignment);
    EXPECT_EQ(h.warnings.size(), ref.warnings.size());
}

TEST_P(GgufRoundTrip, EveryPrefixAsksForMoreThenParsesTheSame) {
    const Variant v = GetParam();
    GgufWriter w = every_value_type(v.version, v.endian, v.alignment);
    std::vector<uint8_t> bytes = w.header();
    model::FileHeader full = kit::parse_header(w);
    for (size_t k = 0; k < w.header_end(); ++k) {
        format::ParseResult r = format::parse_gguf(std::span(bytes).first(k), w.file_size());
        ASSERT_TRUE(std::holds_alternative<format::NeedMore>(r)) << "prefix " << k;
        const auto& more = std::get<format::NeedMore>(r);
        ASSERT_GT(more.min_bytes, k);
        ASSERT_GE(more.estimated_total, more.min_bytes);
    }
    format::ParseResult r = format::parse_gguf(std::span(bytes).first(w.header_end()), w.file_size());
    ASSERT_TRUE(std::holds_alternative<model::FileHeader>(r));
    const auto& h = std::get<model::FileHeader>(r);
    expect_same_header(h, full);
}

INSTANTIATE_TEST_SUITE_P(Versions, GgufRoundTrip,
                         ::testing::Values(Variant{1, kit::Endian::little, 32}, Variant{2, kit::Endian::little, 32},
                                           Variant{3, kit::Endian::little, 32}, Variant{3, kit::Endian::big, 32},
                                           Variant{2, kit::Endian::big, 64}, Variant{1, kit::Endian::big, 8},
                                           Variant{3, kit::Endian::little, 1}, Variant{3, kit::Endian::little, 256}),
                         [](const auto& info) {
                             return std::string("v")
                                 .append(std::to_string(info.param.version))
                                 .append(info.param.endian == kit::Endian::big ? "_big" : "_little")
                                 .append("_align")
                                 .append(std::to_string(info.param.alignment));
                         });

TEST(GgufReader, TruncationAtEveryByteIsAnErrorWithItsOffset) {
    // ends with a known type: the size of an unknown-type last tensor is whatever the file holds
    GgufWriter w = every_value_type(3, kit::Endian::little, 32);
    w.add_tensor("tail.weight", {8}, 0);
    std::vector<uint8_t> bytes = w.header();
    bytes.resize(w.file_size(), 0);
    for (size_t k = 0; k < bytes.size(); ++k) {
        try {
            format::parse_gguf(std::span(bytes).first(k), k);
            FAIL() << "a file cut at " << k << " of " << bytes.size() << " bytes parsed";
        } catch (const model::FormatError& e) {
            ASSERT_TRUE(e.offset().has_value()) << e.what();
            EXPECT_LE(*e.offset(), k) << e.what();
        }
    }
    EXPECT_TRUE(std::holds_alternative<model::FileHeader>(format::parse_gguf(bytes, bytes.size())));
}

TEST(GgufReader, EstimateFromAverageStringLength) {
    // 100,000 tokens of 10 bytes: 1.8 MB of array. After 64 KiB the estimate
    // must land within 5% of the real header, so a second read finishes it.
    GgufWriter w;
    std::vector<std::string> toks(100'000, "abcdefghij");
    w.add_kv("tokenizer.ggml.tokens", GgufValue::string_array(toks));
    w.add_tensor("x", {32}, 0);
    std::vector<uint8_t> bytes = w.header();
    auto r = format::parse_gguf(std::span(bytes).first(64 << 10), w.file_size());
    ASSERT_TRUE(std::holds_alternative<format::NeedMore>(r));
    double est = double(std::get<format::NeedMore>(r).estimated_total);
    EXPECT_GE(est, double(w.header_end()));
    EXPECT_LE(est, 1.05 * double(w.data_start()));
    auto done = format::parse_gguf(std::span(bytes).first(size_t(est)), w.file_size());
    EXPECT_TRUE(std::holds_alternative<model::FileHeader>(done));
}

TEST(GgufReader, DuplicateKeyKeepsTheFirstValueAndWarns) {
    GgufWriter w;
    w.add_kv("general.architecture", GgufValue::str("llama"));
    w.add_kv("general.name", GgufValue::str("x"));
    w.add_kv("general.architecture", GgufValue::str("mistral"));
    model::FileHeader h = kit::parse_header(w);
    ASSERT_EQ(h.metadata.size(), 2u);
    EXPECT_EQ(std::get<std::string>(entry(h, "general.architecture").value), "llama");
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_EQ(h.warnings[0].offset, w.kv_offset(2));
    EXPECT_NE(h.warnings[0].message.find("duplicate key 'general.architecture' (first value kept, this one differs)"),
              std::string::npos);
}

TEST(GgufReader, RowNotAMultipleOfTheBlockIsAWarningNotAnError) {
    // A real Q8_0 file has ne[0] = 172; 172 x 8 = 1376 elements = 43 whole blocks.
    GgufWriter w;
    w.add_tensor("blk.0.ffn_down.weight", {172, 8}, 8, 43 * 34);
    model::FileHeader h = kit::parse_header(w);
    ASSERT_EQ(h.tensors.size(), 1u);
    EXPECT_EQ(h.tensors[0].expected_bytes, 43u * 34);
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_NE(h.warnings[0].message.find("ne[0] = 172 is not a multiple of the Q8_0 block size 32"), std::string::npos);
}

TEST(GgufReader, VocabOnlyFileMayEndBeforeTheAlignedDataStart) {
    GgufWriter w;
    w.add_kv("tokenizer.ggml.model", GgufValue::str("gpt2"));  // header_end is not a multiple of 32
    ASSERT_NE(w.header_end() % 32, 0u);
    std::vector<uint8_t> bytes = w.header();
    bytes.resize(w.header_end());
    auto r = format::parse_gguf(bytes, bytes.size());
    ASSERT_TRUE(std::holds_alternative<model::FileHeader>(r));
    const auto& h = std::get<model::FileHeader>(r);
    EXPECT_EQ(h.data_start, w.data_start());
    EXPECT_EQ(h.header_bytes, bytes.size());
    EXPECT_TRUE(h.warnings.empty());
}

TEST(GgufReader, SizesAreMeasuredFromOffsetsAndCheckedAgainstTheTable) {
    // an 80-byte hole after a Q4_K tensor: measured 224, table 144 -> warning, kept
    GgufWriter w;
    w.add_tensor_at("a", {256}, 12, 0, 144);
    w.add_tensor_at("b", {8}, 0, 224, 32);
    model::FileHeader h = kit::parse_header(w);
    EXPECT_EQ(h.tensors[0].bytes, 224u);
    EXPECT_EQ(h.tensors[1].bytes, 32u);
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_NE(h.warnings[0].message.find("measured 224 bytes, the Q4_K table says 144"), std::string::npos);
}

}  // namespace
