// Negative files for both parsers, grouped by the phase that rejects them.
// Every case is built with the test kit and asserts the whole error text and
// the exact byte offset it reports. Files that are odd but accepted (with or
// without a warning) are asserted at the end of each format's section.
#include <gtest/gtest.h>

#include <cstring>

#include "format/gguf.hpp"
#include "format/parse_result.hpp"
#include "format/safetensors.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/safetensors_writer.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

using namespace modelcat;
using kit::GgufType;
using kit::GgufValue;
using kit::GgufWriter;

namespace {

constexpr uint64_t kTiB = 1ull << 40;

struct Case {
    std::string name;            // the test's name: [A-Za-z0-9_]
    std::vector<uint8_t> bytes;  // the whole file, or the prefix of it that is read
    uint64_t file_size;
    uint64_t offset;             // where the error is reported
    std::string message;         // the whole error text
    model::Limits limits = {};
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }
std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }

// The error's offset and text, or a description of what happened instead.
std::pair<uint64_t, std::string> outcome(const format::ParseResult& r) {
    if (const auto* more = std::get_if<format::NeedMore>(&r))
        return {~0ull, "asked for " + std::to_string(more->min_bytes) + " bytes"};
    return {~0ull, "parsed without error"};
}

template <typename Parse>
std::pair<uint64_t, std::string> error_of(Parse parse, const Case& c) {
    try {
        return outcome(parse(c.bytes, c.file_size, c.limits));
    } catch (const model::FormatError& e) {
        return {e.offset().value_or(~1ull), e.what()};  // the header parsers always know where
    }
}

void put_u32(std::vector<uint8_t>& b, uint64_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void put_u64(std::vector<uint8_t>& b, uint64_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

// The whole file: header, padding, tensor data as zeros.
std::vector<uint8_t> file_of(const GgufWriter& w) {
    std::vector<uint8_t> b = w.header();
    b.resize(w.file_size(), 0);
    return b;
}

// A complete file that a patch turns hostile.
Case patched(std::string name, const GgufWriter& w, uint64_t at, uint64_t value, size_t width, uint64_t offset,
             std::string message) {
    std::vector<uint8_t> b = file_of(w);
    if (width == 4) put_u32(b, at, static_cast<uint32_t>(value));
    else put_u64(b, at, value);
    return {std::move(name), b, b.size(), offset, std::move(message)};
}

Case whole(std::string name, const GgufWriter& w, uint64_t offset, std::string message) {
    std::vector<uint8_t> b = file_of(w);
    return {std::move(name), b, b.size(), offset, std::move(message)};
}

// ---------------------------------------------------------------- GGUF ----

// general.name = "abc", one 8x4 F32 tensor "t". Layout (v3): prologue 0-23,
// KV 24-58 (its value's length at 48), tensor info 59-99 (n_dims at 68, dims
// at 72 and 80, type at 88, offset at 92), data 128-255.
GgufWriter base(uint32_t version = 3, kit::Endian endian = kit::Endian::little) {
    GgufWriter w(version, endian);
    w.add_kv("general.name", GgufValue::str("abc"));
    w.add_tensor("t", {8, 4}, 0);
    return w;
}

GgufWriter one_kv(const std::string& key, GgufValue v) {
    GgufWriter w;
    w.add_kv(key, std::move(v));
    return w;
}

std::string bad_version(uint32_t v) {
    return "unsupported GGUF version " + std::to_string(v) + " (expected 1, 2 or 3, either byte order)";
}

std::vector<Case> gguf_header_cases() {
    std::vector<Case> cases;
    std::vector<uint8_t> b = file_of(base());
    std::memcpy(b.data(), "GGML", 4);
    cases.push_back({"bad_magic", b, 256, 0, R"(not a GGUF file: magic "GGML", expected "GGUF")"});
    cases.push_back(patched("version_0", base(), 4, 0, 4, 4, bad_version(0)));
    cases.push_back(patched("version_4", base(), 4, 4, 4, 4, bad_version(4)));
    cases.push_back(patched("version_4_byte_swapped", base(), 4, 0x04000000, 4, 4, bad_version(67108864)));
    cases.push_back(patched("version_all_ones", base(), 4, ~0u, 4, 4, bad_version(4294967295)));
    cases.push_back({"empty_file", {}, 0, 0, "truncated: magic needs 4 bytes at offset 0 but the file ends at 0"});
    cases.push_back({"ends_in_the_version", {'G', 'G', 'U', 'F', 3, 0}, 6, 4,
                     "truncated: version needs 4 bytes at offset 4 but the file ends at 6"});
    // CVE-2024-23605's kind: a count that would size an allocation
    cases.push_back(patched("tensor_count_all_ones", base(), 8, ~0ull, 8, 8,
                            "tensor_count 18446744073709551615 cannot fit in the file (256 bytes) or exceeds the cap "
                            "of 1048576"));
    // 232 bytes after the prologue hold at most 11 tensor infos of 20 bytes
    cases.push_back(patched("tensor_count_one_more_than_the_file_holds", base(), 8, 12, 8, 8,
                            "tensor_count 12 cannot fit in the file (256 bytes) or exceeds the cap of 1048576"));
    cases.push_back(patched("kv_count_2_to_the_40", base(), 16, kTiB, 8, 16,
                            "kv_count 1099511627776 cannot fit in the file (256 bytes) or exceeds the cap of 1048576"));
    GgufWriter v1 = base(1);  // 32-bit counts: kv_count at 12
    cases.push_back(patched("v1_kv_count_all_ones", v1, 12, ~0u, 4, 12,
                            "kv_count 4294967295 cannot fit in the file (" + std::to_string(v1.file_size()) +
                                " bytes) or exceeds the cap of 1048576"));
    // over the cap in a 1 TiB file: the cap, not the file, is what refuses it
    b = base(3, kit::Endian::big).header();
    put_u64(b, 8, __builtin_bswap64(1048577));
    cases.push_back({"big_endian_tensor_count_over_the_cap", b, kTiB, 8,
                     "tensor_count 1048577 cannot fit in the file (1099511627776 bytes) or exceeds the cap of 1048576"});
    Case capped = whole("header_longer_than_the_cap", base(), 100, "header of 128 bytes exceeds the cap of 64");
    capped.limits.max_header_bytes = 64;
    cases.push_back(capped);
    // a 40-byte prefix ends inside the first key (24-43): reading on would pass the cap of 32
    b = file_of(base());
    b.resize(40);
    cases.push_back({"prefix_needs_more_than_the_cap", b, 256, 32, "header needs more than the cap of 32 bytes",
                     model::Limits{.max_header_bytes = 32}});
    return cases;
}

std::vector<Case> gguf_key_value_cases() {
    std::vector<Case> cases;
    // base(): the first key's length at 24, its value's length at 48
    cases.push_back(patched("key_length_bomb", base(), 24, 1ull << 63, 8, 24,
                            "metadata key 0: string length 9223372036854775808 exceeds the bytes left in the file (224)"));
    Case key_cap = whole("key_longer_than_the_string_cap", base(), 24,
                         "metadata key 0: string length 12 exceeds the cap of 8");
    key_cap.limits.max_string_bytes = 8;
    cases.push_back(key_cap);
    cases.push_back(patched("string_value_length_bomb", base(), 48, 1ull << 63, 8, 48,
                            "key 'general.name': string value: string length 9223372036854775808 exceeds the bytes "
                            "left in the file (200)"));
    // "a" = [uint64 1]: element type at 37, length at 41, file of 64 bytes
    GgufWriter arr = one_kv("a", GgufValue::array(GgufType::u64, {GgufValue::u64(1)}));
    cases.push_back(patched("array_length_over_the_cap", arr, 41, 1ull << 62, 8, 41,
                            "key 'a': array length 4611686018427387904 exceeds the cap of 268435456"));
    cases.push_back(patched("array_longer_than_the_file", arr, 41, 1000, 8, 41,
                            "key 'a': array of 1000 uint64 needs at least 8000 bytes but 15 remain in the file"));
    cases.push_back(patched("array_element_type_13", arr, 37, 13, 4, 37,
                            "key 'a': array element type: value type 13 is not a GGUF type (0-12)"));
    // "s" = ["xy"]: the element's length at 49
    cases.push_back(patched("string_element_length_bomb", one_kv("s", GgufValue::string_array({"xy"})), 49,
                            1ull << 63, 8, 49,
                            "key 's': string element: string length 9223372036854775808 exceeds the bytes left in "
                            "the file (7)"));
    // "n" = [[1]]: the inner array's length at 53
    GgufWriter nested = one_kv("n", GgufValue::array(GgufType::array, {GgufValue::array(GgufType::u8, {GgufValue::u8(1)})}));
    cases.push_back(patched("inner_array_longer_than_the_file", nested, 53, 1000, 8, 53,
                            "key 'n': array of 1000 uint8 needs at least 1000 bytes but 3 remain in the file"));
    GgufWriter raw;
    raw.add_raw_kv("bad", 13, {0, 0, 0, 0});  // type at 35
    cases.push_back(whole("value_type_13", raw, 35, "type of 'bad': value type 13 is not a GGUF type (0-12)"));
    cases.push_back(patched("value_type_all_ones", raw, 35, ~0u, 4, 35,
                            "type of 'bad': value type 4294967295 is not a GGUF type (0-12)"));
    // nine levels: the ninth array starts 8 x 12 bytes after the value (at 40)
    GgufValue deep = GgufValue::array(GgufType::u8, {});
    for (int i = 0; i < 8; ++i) deep = GgufValue::array(GgufType::array, {deep});
    cases.push_back(whole("arrays_nested_deeper_than_the_cap", one_kv("deep", deep), 40 + 8 * 12,
                          "key 'deep': arrays nested deeper than the cap of 8"));
    cases.push_back(whole("empty_key", one_kv("", GgufValue::u8(1)), 24, "metadata key 0 is empty"));
    GgufWriter third;
    third.add_kv("a", GgufValue::u8(1));
    third.add_kv("b", GgufValue::u8(2));
    third.add_kv("", GgufValue::u8(3));
    cases.push_back(whole("empty_third_key", third, third.kv_offset(2), "metadata key 2 is empty"));
    // general.alignment must be a uint32 power of two up to 1 MiB; the error points at its key
    const std::pair<const char*, GgufValue> wrong_types[] = {{"uint64", GgufValue::u64(32)},
                                                             {"int32", GgufValue::i32(32)},
                                                             {"bool", GgufValue::boolean(true)},
                                                             {"string", GgufValue::str("32")}};
    for (const auto& [type, value] : wrong_types)
        cases.push_back(whole(std::string("alignment_of_type_") + type, one_kv("general.alignment", value), 24,
                              std::string("general.alignment has type ") + type + ", expected uint32"));
    for (uint32_t a : {0u, 3u, 48u})
        cases.push_back(whole("alignment_" + std::to_string(a), one_kv("general.alignment", GgufValue::u32(a)), 24,
                              "general.alignment " + std::to_string(a) + " is not a power of two"));
    for (uint32_t a : {1u << 21, 1u << 31})
        cases.push_back(whole("alignment_" + std::to_string(a), one_kv("general.alignment", GgufValue::u32(a)), 24,
                              "general.alignment " + std::to_string(a) + " exceeds the cap of 1048576"));
    // "v" = uint32, the file cut 2 bytes into the value (at 37)
    std::vector<uint8_t> cut = file_of(one_kv("v", GgufValue::u32(7)));
    cut.resize(39);
    cases.push_back({"file_ends_inside_a_value", cut, 39, 37,
                     "key 'v': truncated: u32 value needs 4 bytes at offset 37 but the file ends at 39"});
    return cases;
}

// A writer with one tensor `name` and the offsets of its fields.
struct OneTensor {
    GgufWriter w;
    uint64_t info, n_dims_at, dims_at, type_at;
};

OneTensor one_tensor(const std::string& name, std::vector<uint64_t> dims, uint32_t type,
                     std::optional<uint64_t> bytes = std::nullopt) {
    GgufWriter w;
    const uint64_t n = dims.size();
    w.add_tensor(name, std::move(dims), type, bytes);
    const uint64_t info = w.tensor_info_offset(0);
    const uint64_t n_dims_at = info + 8 + name.size();
    return {w, info, n_dims_at, n_dims_at + 4, n_dims_at + 4 + 8 * n};
}

std::vector<Case> gguf_tensor_info_cases() {
    std::vector<Case> cases;
    // base(): tensor info at 59, n_dims at 68, dims at 72 and 80
    cases.push_back(patched("tensor_name_length_bomb", base(), 59, 1ull << 63, 8, 59,
                            "tensor name: string length 9223372036854775808 exceeds the bytes left in the file (189)"));
    for (uint32_t n : {5u, 1000u})
        cases.push_back(patched("n_dims_" + std::to_string(n), base(), 68, n, 4, 68,
                                "tensor 't': n_dims " + std::to_string(n) + " exceeds ggml's limit of 4"));
    cases.push_back(patched("negative_dimension", base(), 80, static_cast<uint64_t>(-5ll), 8, 80,
                            "tensor 't': dimension 1 is negative (-5)"));
    cases.push_back(patched("dimension_2_to_the_63", base(), 72, 1ull << 63, 8, 72,
                            "tensor 't': dimension 0 is negative (-9223372036854775808)"));
    // CVE-2024-21802's kind: 2^40 x 2^40 elements
    std::vector<uint8_t> b = file_of(base());
    put_u64(b, 72, kTiB);
    put_u64(b, 80, kTiB);
    cases.push_back({"dimensions_overflow_int64", b, b.size(), 80,
                     "tensor 't': the product of its dimensions overflows int64"});
    GgufWriter dup;
    dup.add_tensor("same", {8}, 0);
    dup.add_tensor("same", {8}, 0);
    cases.push_back(whole("duplicate_tensor_name", dup, dup.tensor_info_offset(1), "duplicate tensor name 'same'"));
    GgufWriter unnamed;
    unnamed.add_tensor("a", {8}, 0);
    unnamed.add_tensor("", {8}, 0);
    cases.push_back(whole("empty_tensor_name", unnamed, unnamed.tensor_info_offset(1), "tensor 1 has an empty name"));
    OneTensor q = one_tensor("q", {33}, 8, 34);
    cases.push_back(whole("not_a_whole_number_of_blocks", q.w, q.type_at,
                          "tensor 'q': 33 elements are not a whole number of Q8_0 blocks of 32"));
    OneTensor q4 = one_tensor("q4", {128, 3}, 12, 144);
    cases.push_back(whole("rows_not_whole_blocks_and_total_neither", q4.w, q4.type_at,
                          "tensor 'q4': 384 elements are not a whole number of Q4_K blocks of 256"));
    // the table's size wraps 64 bits: 2^62 x 4 bytes, 2^61 x 8 bytes
    OneTensor f32 = one_tensor("big", {1ull << 31, 1ull << 31}, 0, 0);
    cases.push_back(whole("f32_byte_size_overflows", f32.w, f32.type_at,
                          "tensor 'big': 4611686018427387904 F32 elements take more than 2^64 bytes"));
    OneTensor i64 = one_tensor("big", {1ull << 61}, 27, 0);
    cases.push_back(whole("i64_byte_size_overflows", i64.w, i64.type_at,
                          "tensor 'big': 2305843009213693952 I64 elements take more than 2^64 bytes"));
    return cases;
}

std::vector<Case> gguf_data_layout_cases() {
    std::vector<Case> cases;
    GgufWriter disorder;
    disorder.add_tensor_at("a", {8}, 0, 64, 32);
    disorder.add_tensor_at("b", {8}, 0, 0, 32);
    cases.push_back(whole("offsets_out_of_order", disorder, disorder.tensor_info_offset(1),
                          "tensor 'b': offset 0 is before the previous tensor's 64 (out of order)"));
    GgufWriter overlap;
    overlap.add_tensor_at("a", {64}, 0, 0);
    overlap.add_tensor_at("b", {8}, 0, 128);
    cases.push_back(whole("overlapping", overlap, overlap.tensor_info_offset(1),
                          "tensor 'b': data at offset 128 overlaps the previous tensor, which ends at 256"));
    GgufWriter unaligned;
    unaligned.add_tensor_at("a", {8}, 0, 0);
    unaligned.add_tensor_at("b", {8}, 0, 40);
    cases.push_back(whole("unaligned_offset", unaligned, unaligned.tensor_info_offset(1),
                          "tensor 'b': offset 40 is not a multiple of the alignment 32"));
    GgufWriter by64;
    by64.add_kv("general.alignment", GgufValue::u32(64));
    by64.set_alignment(64);
    by64.add_tensor_at("a", {8}, 0, 0);
    by64.add_tensor_at("b", {8}, 0, 32);
    cases.push_back(whole("offset_aligned_to_32_not_to_general_alignment_64", by64, by64.tensor_info_offset(1),
                          "tensor 'b': offset 32 is not a multiple of the alignment 64"));
    OneTensor cut = one_tensor("a", {1024}, 0);
    std::vector<uint8_t> b = file_of(cut.w);
    b.resize(cut.w.data_start() + 100);
    cases.push_back({"file_ends_inside_the_data", b, b.size(), cut.info,
                     "truncated: " + std::to_string(b.size()) + " of " + std::to_string(cut.w.data_start() + 4096) +
                         " bytes; tensor 'a': 4096 bytes at offset 0 lie past the end of the data (100 bytes after the data start " +
                         std::to_string(cut.w.data_start()) + ")"});
    GgufWriter far;
    far.add_tensor_at("a", {8}, 0, 1ull << 20);
    b = far.header();
    cases.push_back({"offset_past_the_end", b, b.size() + 64, far.tensor_info_offset(0),
                     "truncated: " + std::to_string(b.size() + 64) + " of " + std::to_string(far.data_start() + (1ull << 20) + 32) +
                         " bytes; tensor 'a': 32 bytes at offset 1048576 lie past the end of the data (64 bytes after the data "
                     "start " + std::to_string(far.data_start()) + ")"});
    GgufWriter wraps;  // offset + size would wrap 64 bits
    wraps.add_tensor_at("a", {8}, 0, ~0ull - 31, 32);
    b = wraps.header();
    cases.push_back({"offset_plus_size_wraps", b, b.size() + 64, wraps.tensor_info_offset(0),
                     "tensor 'a': 32 bytes at offset 18446744073709551584 lie past the end of the data (64 bytes after "
                     "the data start " + std::to_string(wraps.data_start()) + ")"});
    // tensors, but the file ends before the aligned data start
    OneTensor early = one_tensor("a", {8}, 0);
    b = early.w.header();
    b.resize(early.w.header_end());
    cases.push_back({"data_start_past_the_end_of_the_file", b, b.size(), early.w.header_end(),
                     "tensor data would start at " + std::to_string(early.w.data_start()) + " but the file ends at " +
                         std::to_string(early.w.header_end())});
    return cases;
}

class NegativeGguf : public ::testing::TestWithParam<Case> {};

TEST_P(NegativeGguf, IsAFormatErrorAtItsOffset) {
    const Case& c = GetParam();
    auto [offset, message] = error_of(format::parse_gguf, c);
    EXPECT_EQ(message, c.message);
    EXPECT_EQ(offset, c.offset);
}

INSTANTIATE_TEST_SUITE_P(Header, NegativeGguf, ::testing::ValuesIn(gguf_header_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(KeyValue, NegativeGguf, ::testing::ValuesIn(gguf_key_value_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(TensorInfo, NegativeGguf, ::testing::ValuesIn(gguf_tensor_info_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(DataLayout, NegativeGguf, ::testing::ValuesIn(gguf_data_layout_cases()), case_name);

model::FileHeader parsed(const GgufWriter& w) {
    std::vector<uint8_t> b = file_of(w);
    format::ParseResult r = format::parse_gguf(b, b.size());
    if (!std::holds_alternative<model::FileHeader>(r)) throw std::runtime_error("asked for more bytes");
    return std::get<model::FileHeader>(std::move(r));
}

#define EXPECT_WARNING(h, at, text)                  \
    do {                                             \
        ASSERT_EQ((h).warnings.size(), 1u);          \
        EXPECT_EQ((h).warnings[0].offset, (at));     \
        EXPECT_EQ((h).warnings[0].message, (text));  \
    } while (0)

TEST(AcceptedGguf, ArraysNestedExactlyToTheCap) {
    GgufValue deep = GgufValue::array(GgufType::u8, {GgufValue::u8(7)});
    for (int i = 0; i < 7; ++i) deep = GgufValue::array(GgufType::array, {deep});
    model::FileHeader h = parsed(one_kv("deep", deep));
    EXPECT_EQ(std::get<model::ArraySummary>(h.metadata.at(0).value).json, "[[[[[[[[7]]]]]]]]");
}

TEST(AcceptedGguf, DuplicateKeyWithTheSameValueWarns) {
    GgufWriter w;
    w.add_kv("a", GgufValue::u8(1));
    w.add_kv("a", GgufValue::u8(1));
    model::FileHeader h = parsed(w);
    EXPECT_EQ(h.metadata.size(), 1u);
    EXPECT_WARNING(h, w.kv_offset(1), "duplicate key 'a' (first value kept, same value)");
}

TEST(AcceptedGguf, DuplicateAlignmentIsNotCheckedAndDoesNotApply) {
    GgufWriter w;
    w.add_kv("general.alignment", GgufValue::u32(64));
    w.add_kv("general.alignment", GgufValue::u32(3));
    w.set_alignment(64);
    w.add_tensor("t", {8}, 0);
    model::FileHeader h = parsed(w);
    EXPECT_EQ(h.alignment, 64u);
    EXPECT_WARNING(h, w.kv_offset(1), "duplicate key 'general.alignment' (first value kept, this one differs)");
}

TEST(AcceptedGguf, BoolByteOtherThanZeroOrOneReadsAsTrue) {
    GgufWriter w;
    w.add_kv("b", GgufValue::u8(2));
    std::vector<uint8_t> b = file_of(w);
    put_u32(b, w.kv_offset(0) + 8 + 1, static_cast<uint32_t>(GgufType::boolean));  // the byte 2, typed bool
    auto h = std::get<model::FileHeader>(format::parse_gguf(b, b.size()));
    EXPECT_EQ(h.metadata.at(0).value, model::MetadataValue(true));
}

// GGUF strings are bytes; the array's JSON must still be valid UTF-8, so each
// byte outside a well-formed sequence becomes U+FFFD.
TEST(AcceptedGguf, InvalidUtf8InAStringArrayBecomesReplacementCharacters) {
    const std::string bad[] = {"\xf7\x8b\x90\x94",   // lead byte past U+10FFFF
                               "\xf4\x90\x80\x80",   // U+110000
                               "\xed\xa0\x80",       // a surrogate
                               "\xe0\x80\xaf",       // overlong '/'
                               "\xc0\xaf",           // overlong '/'
                               "ok \xe2\x82\xac"};   // valid: the euro sign stays
    model::FileHeader h = parsed(one_kv("s", GgufValue::string_array({std::begin(bad), std::end(bad)})));
    const std::string r = "\\ufffd";
    EXPECT_EQ(std::get<model::ArraySummary>(h.metadata.at(0).value).json,
              "[\"" + r + r + r + r + "\",\"" + r + r + r + r + "\",\"" + r + r + r + "\",\"" + r + r + r + "\",\"" + r +
                  r + "\",\"ok \xe2\x82\xac\"]");
}

// The size estimate for a prefix reads tokenizer.ggml.tokens; in a hostile
// file it may be any type, and the prefix must still just ask for more.
TEST(AcceptedGguf, PrefixEstimateWithTokensKeyThatIsNotAnArray) {
    GgufWriter w;
    w.add_kv("tokenizer.ggml.tokens", GgufValue::str("not an array"));
    w.add_kv("tokenizer.ggml.model", GgufValue::str("gpt2"));
    std::vector<uint8_t> b = file_of(w);
    b.resize(w.kv_offset(1) + 4);  // inside the second key's length
    format::ParseResult r = format::parse_gguf(b, w.file_size());
    ASSERT_TRUE(std::holds_alternative<format::NeedMore>(r));
    EXPECT_EQ(std::get<format::NeedMore>(r).min_bytes, w.kv_offset(1) + 8);
}

// n_dims 0 is a scalar: one element (ggml's ne[] default to 1), not an error.
TEST(AcceptedGguf, ZeroDimensionsIsAScalar) {
    OneTensor s = one_tensor("scalar", {}, 0);
    model::FileHeader h = parsed(s.w);
    ASSERT_EQ(h.tensors.size(), 1u);
    EXPECT_TRUE(h.tensors[0].dims.empty());
    EXPECT_EQ(h.tensors[0].n_elements, 1u);
    EXPECT_EQ(h.tensors[0].expected_bytes, 4u);
    EXPECT_TRUE(h.warnings.empty());
}

TEST(AcceptedGguf, TypeIdOutOfTheTableIsKeptWithAWarning) {
    for (uint32_t id : {4u, 43u, 4000u}) {  // removed (Q4_2), the next id, far out
        SCOPED_TRACE(id);
        OneTensor t = one_tensor("new", {64}, id, 100);
        model::FileHeader h = parsed(t.w);
        EXPECT_EQ(h.tensors.at(0).type_id, id);
        EXPECT_EQ(h.tensors[0].type_name, "type_" + std::to_string(id));
        EXPECT_EQ(h.tensors[0].bytes, 100u);
        EXPECT_FALSE(h.tensors[0].expected_bytes.has_value());
        EXPECT_WARNING(h, t.type_at,
                       "tensor 'new': unknown ggml type id " + std::to_string(id) + " (kept; size measured from offsets)");
    }
}

TEST(AcceptedGguf, RowNotWholeBlocksButTotalIsWarnsAtNDims) {
    OneTensor t = one_tensor("w", {128, 2}, 12);  // Q4_K: 256 elements = one block
    model::FileHeader h = parsed(t.w);
    EXPECT_EQ(h.tensors.at(0).expected_bytes, 144u);
    EXPECT_WARNING(h, t.n_dims_at, "tensor 'w': ne[0] = 128 is not a multiple of the Q4_K block size 256");
}

// ---------------------------------------------------------- safetensors ----

// A file whose header is `json` followed by `data` zero bytes.
std::vector<uint8_t> st_file(std::string_view json, uint64_t data) {
    std::vector<uint8_t> b(8 + json.size() + data, 0);
    put_u64(b, 0, json.size());
    std::memcpy(b.data() + 8, json.data(), json.size());
    return b;
}

Case st(std::string name, std::string json, uint64_t data, uint64_t offset, std::string message) {
    std::vector<uint8_t> b = st_file(json, data);
    return {std::move(name), b, b.size(), offset, std::move(message)};
}

// The file offset of the n-th (0-based) occurrence of `text` in `json`.
uint64_t at(std::string_view json, std::string_view text, int n = 0) {
    size_t p = json.find(text);
    while (n-- > 0) p = json.find(text, p + 1);
    if (p == std::string_view::npos) throw std::logic_error("no " + std::string(text) + " in the test's JSON");
    return 8 + p;
}

const std::string kA4 = R"("a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]})";

std::vector<Case> safetensors_length_cases() {
    std::vector<Case> cases;
    std::vector<uint8_t> b(16, 0);
    put_u64(b, 0, ~0ull);
    cases.push_back({"length_all_ones", b, 16, 0, "header length 18446744073709551615 exceeds the cap of 100000000"});
    put_u64(b, 0, 100'000'001);
    cases.push_back({"length_one_over_the_format_cap", b, 1ull << 30, 0,
                     "header length 100000001 exceeds the cap of 100000000"});
    put_u64(b, 0, 65);
    cases.push_back({"length_over_max_header_bytes", b, 1024, 0, "header length 65 exceeds the cap of 64",
                     model::Limits{.max_header_bytes = 64}});
    put_u64(b, 0, 1000);
    cases.push_back({"length_past_the_file", b, 16, 0, "header length 1000 runs past the end of the file (16 bytes)"});
    put_u64(b, 0, 9);
    cases.push_back({"length_one_past_the_file", b, 16, 0, "header length 9 runs past the end of the file (16 bytes)"});
    b.resize(5);
    cases.push_back({"file_shorter_than_the_length", b, 5, 0,
                     "truncated: header length needs 8 bytes at offset 0 but the file ends at 5"});
    return cases;
}

std::vector<Case> safetensors_json_cases() {
    std::vector<Case> cases;
    cases.push_back(st("empty_header", "", 0, 8, "header is not valid JSON: Empty: no JSON found"));
    cases.push_back(st("json_cut_short", "{\"a\":", 0, 8,
                       "header is not valid JSON: The JSON document has an improper structure: missing or superfluous "
                       "commas, braces, missing keys, etc."));
    cases.push_back(st("invalid_utf8_in_a_key", "{\"\xff\xfe\":{}}", 0, 8,
                       "header is not valid JSON: The input is not valid UTF-8"));
    cases.push_back(st("invalid_utf8_in_metadata", "{\"__metadata__\":{\"k\":\"\xc3\x28\"}}", 0, 8,
                       "header is not valid JSON: The input is not valid UTF-8"));
    cases.push_back(st("array_not_object", "[1,2,3]", 0, 8, "header is not a JSON object"));
    cases.push_back(st("string_not_object", "\"a\"", 0, 8, "header is not a JSON object"));
    cases.push_back(st("null_not_object", "null", 0, 8, "header is not a JSON object"));
    const std::string dup = "{" + kA4 + "," + kA4 + "}";
    cases.push_back(st("duplicate_key", dup, 4, at(dup, "\"a\"", 1), "duplicate key 'a'"));
    const std::string two = "{" + kA4 + R"(,"b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})";
    Case capped = st("more_tensors_than_the_cap", two, 8, at(two, "\"b\""), "more than the cap of 1 tensors");
    capped.limits.max_tensors = 1;
    cases.push_back(capped);
    cases.push_back(st("metadata_not_an_object", R"( {"__metadata__":[1]})", 0, 10,
                       "__metadata__ must be an object or null"));
    return cases;
}

std::vector<Case> safetensors_entry_cases() {
    struct Entry {
        const char* name;
        std::string entry;  // the value of key "a"
        std::string message;
    };
    const Entry entries[] = {
        {"entry_not_an_object", "1", "entry is not an object"},
        {"dtype_missing", R"({"shape":[1],"data_offsets":[0,4]})", "missing or non-string \"dtype\""},
        {"dtype_not_a_string", R"({"dtype":5,"shape":[1],"data_offsets":[0,4]})", "missing or non-string \"dtype\""},
        {"shape_missing", R"({"dtype":"U8","data_offsets":[0,4]})", "missing or non-array \"shape\""},
        {"shape_not_an_array", R"({"dtype":"U8","shape":4,"data_offsets":[0,4]})", "missing or non-array \"shape\""},
        {"shape_negative", R"({"dtype":"U8","shape":[-1],"data_offsets":[0,4]})",
         "shape holds -1, expected a non-negative integer"},
        {"shape_fractional", R"({"dtype":"U8","shape":[1.5],"data_offsets":[0,4]})",
         "shape holds 1.5, expected a non-negative integer"},
        {"shape_product_overflows", R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]})",
         "the product of the shape overflows"},
        {"data_offsets_missing", R"({"dtype":"U8","shape":[4]})", "missing or non-array \"data_offsets\""},
        {"data_offsets_one_integer", R"({"dtype":"U8","shape":[4],"data_offsets":[4]})",
         "data_offsets has 1 entries, expected 2"},
        {"data_offsets_three_integers", R"({"dtype":"U8","shape":[4],"data_offsets":[0,4,8]})",
         "data_offsets has 3 entries, expected 2"},
        {"data_offsets_string", R"({"dtype":"U8","shape":[4],"data_offsets":[0,"4"]})",
         "data_offsets must be non-negative integers"},
        {"data_offsets_negative", R"({"dtype":"U8","shape":[4],"data_offsets":[-4,0]})",
         "data_offsets must be non-negative integers"},
        {"data_offsets_reversed", R"({"dtype":"U8","shape":[4],"data_offsets":[4,0]})",
         "data_offsets [4, 0] end before they begin"},
        {"shape_times_dtype_is_not_the_span", R"({"dtype":"F32","shape":[2],"data_offsets":[0,4]})",
         "shape x dtype is 8 bytes but data_offsets span 4"},
        {"f4_odd_element_count", R"({"dtype":"F4","shape":[3],"data_offsets":[0,2]})",
         "3 F4 elements are not a whole number of bytes"},
    };
    std::vector<Case> cases;
    for (const Entry& e : entries) {
        // after another tensor and __metadata__, so the offset is not simply 9
        const std::string json = R"({"__metadata__":{"k":"v"},"x":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},"a":)" +
                                 e.entry + "}";
        cases.push_back(st(e.name, json, 4, at(json, "\"a\""), "tensor 'a': " + e.message));
    }
    // offsets of keys written with escapes are exact too
    const std::string escaped = R"({"q\"\u0072":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b\\":1})";
    cases.push_back(st("escaped_keys_are_located", escaped, 1, at(escaped, R"("b\\")"),
                       "tensor 'b\\': entry is not an object"));
    return cases;
}

std::vector<Case> safetensors_layout_cases() {
    std::vector<Case> cases;
    auto two = [](const std::string& a, const std::string& b) {
        return R"({"a":{"dtype":"U8","shape":[4],"data_offsets":)" + a + R"(},"b":{"dtype":"U8","shape":[4],"data_offsets":)" +
               b + "}}";
    };
    std::string json = two("[0,4]", "[8,12]");
    cases.push_back(st("hole_between_tensors", json, 12, at(json, "\"b\""),
                       "tensor 'b': hole in the data: bytes [4, 8) belong to no tensor"));
    json = two("[4,8]", "[8,12]");
    cases.push_back(st("hole_at_the_start", json, 12, at(json, "\"a\""),
                       "tensor 'a': hole in the data: bytes [0, 4) belong to no tensor"));
    json = two("[0,4]", "[2,6]");
    cases.push_back(st("overlapping", json, 6, at(json, "\"b\""),
                       "tensor 'b': data_offsets [2, 6) overlap the previous tensor, which ends at 4"));
    json = two("[0,4]", "[0,4]");
    cases.push_back(st("same_span_twice", json, 4, at(json, "\"b\""),
                       "tensor 'b': data_offsets [0, 4) overlap the previous tensor, which ends at 4"));
    json = "{" + kA4 + "}";
    cases.push_back(st("trailing_bytes", json, 10, 8 + json.size() + 4, "6 trailing bytes after the last tensor's data"));
    json = R"({"a":{"dtype":"U8","shape":[16],"data_offsets":[0,16]}})";
    cases.push_back(st("past_the_end_of_the_file", json, 8, at(json, "\"a\""),
                       "tensor 'a': data_offsets end at 16, past the 8 data bytes in the file"));
    cases.push_back(st("no_tensors_but_data", "{}", 3, 10, "3 trailing bytes after the last tensor's data"));
    return cases;
}

class NegativeSafetensors : public ::testing::TestWithParam<Case> {};

TEST_P(NegativeSafetensors, IsAFormatErrorAtItsOffset) {
    const Case& c = GetParam();
    auto [offset, message] = error_of(format::parse_safetensors, c);
    EXPECT_EQ(message, c.message);
    EXPECT_EQ(offset, c.offset);
}

INSTANTIATE_TEST_SUITE_P(Length, NegativeSafetensors, ::testing::ValuesIn(safetensors_length_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Json, NegativeSafetensors, ::testing::ValuesIn(safetensors_json_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Entry, NegativeSafetensors, ::testing::ValuesIn(safetensors_entry_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Layout, NegativeSafetensors, ::testing::ValuesIn(safetensors_layout_cases()), case_name);

TEST(AcceptedSafetensors, DuplicateMetadataKeyKeepsTheFirstAndWarns) {
    const std::string json = R"({"__metadata__":{"k":"1","k":"2"}})";
    std::vector<uint8_t> b = st_file(json, 0);
    auto h = std::get<model::FileHeader>(format::parse_safetensors(b, b.size()));
    ASSERT_EQ(h.metadata.size(), 1u);
    EXPECT_EQ(h.metadata[0].value, model::MetadataValue(std::string("1")));
    EXPECT_EQ(h.metadata[0].offset, at(json, "\"k\""));
    EXPECT_WARNING(h, at(json, "\"k\"", 1), "duplicate __metadata__ key 'k' (first value kept)");
}

}  // namespace
