// Hostile and malformed headers: each is a FormatError that names the field
// and carries the byte offset, never a crash or a huge allocation.
#include <gtest/gtest.h>

#include <cstring>

#include "format/gguf.hpp"
#include "format/safetensors.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/safetensors_writer.hpp"

using namespace modelcat;
using kit::GgufType;
using kit::GgufValue;
using kit::GgufWriter;

namespace {

struct Failure {
    uint64_t offset;
    std::string message;
};

Failure gguf_failure(const std::vector<uint8_t>& bytes, uint64_t file_size) {
    try {
        format::parse_gguf(bytes, file_size);
    } catch (const format::FormatError& e) {
        return {e.offset(), e.what()};
    }
    ADD_FAILURE() << "parsed without error";
    return {0, ""};
}

Failure gguf_failure(const GgufWriter& w) {
    std::vector<uint8_t> bytes = w.header();
    return gguf_failure(bytes, std::max<uint64_t>(w.file_size(), bytes.size()));
}

void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }
void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

#define EXPECT_MESSAGE(f, text) EXPECT_NE((f).message.find(text), std::string::npos) << (f).message

TEST(HostileGguf, BadMagic) {
    std::vector<uint8_t> b = {'G', 'G', 'M', 'L', 3, 0, 0, 0};
    b.resize(64);
    Failure f = gguf_failure(b, b.size());
    EXPECT_EQ(f.offset, 0u);
    EXPECT_MESSAGE(f, "not a GGUF file: magic \"GGML\"");
}

TEST(HostileGguf, UnsupportedVersions) {
    for (uint32_t v : {0u, 4u, 0x04000000u, 0xffffffffu}) {
        GgufWriter w;
        std::vector<uint8_t> b = w.header();
        put_u32(b, 4, v);
        Failure f = gguf_failure(b, b.size());
        EXPECT_EQ(f.offset, 4u);
        EXPECT_MESSAGE(f, "unsupported GGUF version " + std::to_string(v));
    }
}

TEST(HostileGguf, CountsLargerThanTheFileCanHold) {
    GgufWriter w;
    w.add_kv("a", GgufValue::u8(1));
    w.override_kv_count(1ull << 40);
    Failure f = gguf_failure(w);
    EXPECT_EQ(f.offset, 16u);
    EXPECT_MESSAGE(f, "kv_count 1099511627776 cannot fit");

    GgufWriter t;
    t.override_tensor_count(0xffffffffffffffffull);  // CVE-2024-23605 style
    f = gguf_failure(t);
    EXPECT_EQ(f.offset, 8u);
    EXPECT_MESSAGE(f, "tensor_count 18446744073709551615 cannot fit");
}

TEST(HostileGguf, StringLengthBomb) {
    GgufWriter w;
    w.add_kv("general.name", GgufValue::str("abc"));
    std::vector<uint8_t> b = w.header();
    size_t len_at = w.kv_offset(0) + 8 + 12 + 4;  // key length, key, type, then the value's length
    put_u64(b, len_at, 1ull << 63);
    Failure f = gguf_failure(b, b.size());
    EXPECT_EQ(f.offset, len_at);
    EXPECT_MESSAGE(f, "string length 9223372036854775808 exceeds the bytes left in the file");
}

TEST(HostileGguf, ArrayCountBomb) {
    GgufWriter w;
    w.add_kv("tokenizer.ggml.scores", GgufValue::array(GgufType::f32, {GgufValue::f32(1)}));
    std::vector<uint8_t> b = w.header();
    size_t count_at = w.kv_offset(0) + 8 + 21 + 4 + 4;
    put_u64(b, count_at, 1ull << 62);
    Failure f = gguf_failure(b, b.size());
    EXPECT_EQ(f.offset, count_at);
    EXPECT_MESSAGE(f, "array length 4611686018427387904 exceeds the cap");
}

TEST(HostileGguf, ValueTypeOutOfRange) {
    GgufWriter w;
    w.add_raw_kv("bad", 13, {0, 0, 0, 0});
    Failure f = gguf_failure(w);
    EXPECT_EQ(f.offset, w.kv_offset(0) + 8 + 3);
    EXPECT_MESSAGE(f, "value type 13 is not a GGUF type");
}

TEST(HostileGguf, NestedArraysDeeperThanTheCap) {
    GgufValue v = GgufValue::array(GgufType::u8, {});
    for (int i = 0; i < 20; ++i) v = GgufValue::array(GgufType::array, {v});
    GgufWriter w;
    w.add_kv("deep", v);
    Failure f = gguf_failure(w);
    EXPECT_MESSAGE(f, "arrays nested deeper than the cap of 8");
}

TEST(HostileGguf, EmptyKey) {
    GgufWriter w;
    w.add_kv("", GgufValue::u8(1));
    Failure f = gguf_failure(w);
    EXPECT_EQ(f.offset, w.kv_offset(0));
    EXPECT_MESSAGE(f, "metadata key 0 is empty");
}

TEST(HostileGguf, BadAlignments) {
    for (uint32_t a : {0u, 3u, 1u << 31}) {
        GgufWriter w;
        w.add_kv("general.alignment", GgufValue::u32(a));
        Failure f = gguf_failure(w);
        EXPECT_EQ(f.offset, w.kv_offset(0));
        EXPECT_MESSAGE(f, "general.alignment " + std::to_string(a));
    }
    GgufWriter w;
    w.add_kv("general.alignment", GgufValue::u64(64));
    EXPECT_MESSAGE(gguf_failure(w), "general.alignment has type uint64, expected uint32");
}

TEST(HostileGguf, TooManyDims) {
    for (uint64_t n : {5ull, 1000ull}) {
        GgufWriter w;
        w.add_tensor("t", std::vector<uint64_t>(std::min<uint64_t>(n, 8), 1), 0, 4);
        std::vector<uint8_t> b = w.header();
        size_t ndims_at = w.tensor_info_offset(0) + 8 + 1;
        put_u32(b, ndims_at, static_cast<uint32_t>(n));
        Failure f = gguf_failure(b, w.file_size());
        EXPECT_EQ(f.offset, ndims_at);
        EXPECT_MESSAGE(f, "n_dims " + std::to_string(n) + " exceeds ggml's limit of 4");
    }
}

TEST(HostileGguf, NegativeAndOverflowingDims) {
    GgufWriter w;
    w.add_tensor("t", {4, 4}, 0, 64);
    std::vector<uint8_t> b = w.header();
    size_t dim1 = w.tensor_info_offset(0) + 8 + 1 + 4 + 8;
    put_u64(b, dim1, static_cast<uint64_t>(-5ll));
    Failure f = gguf_failure(b, w.file_size());
    EXPECT_EQ(f.offset, dim1);
    EXPECT_MESSAGE(f, "dimension 1 is negative (-5)");

    put_u64(b, dim1 - 8, 1ull << 40);
    put_u64(b, dim1, 1ull << 40);  // CVE-2024-21802 style: 2^80 elements
    f = gguf_failure(b, w.file_size());
    EXPECT_EQ(f.offset, dim1);
    EXPECT_MESSAGE(f, "the product of its dimensions overflows int64");
}

TEST(HostileGguf, DuplicateTensorName) {
    GgufWriter w;
    w.add_tensor("same", {8}, 0);
    w.add_tensor("same", {8}, 0);
    Failure f = gguf_failure(w);
    EXPECT_EQ(f.offset, w.tensor_info_offset(1));
    EXPECT_MESSAGE(f, "duplicate tensor name 'same'");
}

TEST(HostileGguf, NotAWholeNumberOfBlocks) {
    GgufWriter w;
    w.add_tensor("q", {33}, 8, 34);
    EXPECT_MESSAGE(gguf_failure(w), "33 elements are not a whole number of Q8_0 blocks of 32");
}

TEST(HostileGguf, OffsetsOutOfOrderOverlappingUnalignedOrPastTheEnd) {
    {
        GgufWriter w;
        w.add_tensor_at("a", {8}, 0, 64, 32);
        w.add_tensor_at("b", {8}, 0, 0, 32);
        Failure f = gguf_failure(w);
        EXPECT_EQ(f.offset, w.tensor_info_offset(1));
        EXPECT_MESSAGE(f, "out of order");
    }
    {
        GgufWriter w;
        w.add_tensor_at("a", {64}, 0, 0, 256);
        w.add_tensor_at("b", {8}, 0, 128, 32);
        Failure f = gguf_failure(w);
        EXPECT_EQ(f.offset, w.tensor_info_offset(1));
        EXPECT_MESSAGE(f, "overlaps the previous tensor, which ends at 256");
    }
    {
        GgufWriter w;
        w.add_tensor_at("a", {8}, 0, 0, 32);
        w.add_tensor_at("b", {8}, 0, 40, 32);
        EXPECT_MESSAGE(gguf_failure(w), "offset 40 is not a multiple of the alignment 32");
    }
    {
        GgufWriter w;
        w.add_tensor("a", {1024}, 0);
        std::vector<uint8_t> b = w.header();
        Failure f = gguf_failure(b, w.data_start() + 100);  // file cut inside the tensor data
        EXPECT_EQ(f.offset, w.tensor_info_offset(0));
        EXPECT_MESSAGE(f, "lies past the end of the data");
    }
}

TEST(HostileGguf, UnknownTypeIdIsKept) {
    GgufWriter w;
    w.add_tensor("new", {64}, 4000, 100);
    std::vector<uint8_t> b = w.header();
    auto r = format::parse_gguf(b, w.file_size());
    ASSERT_TRUE(std::holds_alternative<format::FileHeader>(r));
    const auto& h = std::get<format::FileHeader>(r);
    EXPECT_EQ(h.tensors[0].type_id, 4000u);
    EXPECT_EQ(h.tensors[0].bytes, 100u);
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_MESSAGE(h.warnings[0], "unknown ggml type id 4000");
}

// ---- safetensors ----

Failure st_failure(const std::vector<uint8_t>& bytes, uint64_t file_size) {
    try {
        format::parse_safetensors(bytes, file_size);
    } catch (const format::FormatError& e) {
        return {e.offset(), e.what()};
    }
    ADD_FAILURE() << "parsed without error";
    return {0, ""};
}

std::vector<uint8_t> raw_header(std::string_view json) {
    std::vector<uint8_t> b(8 + json.size());
    put_u64(b, 0, json.size());
    std::memcpy(b.data() + 8, json.data(), json.size());
    return b;
}

TEST(HostileSafetensors, LengthPastTheFileOrOverTheCap) {
    std::vector<uint8_t> b(16, 0);
    put_u64(b, 0, 0xffffffffffffffffull);
    Failure f = st_failure(b, b.size());
    EXPECT_EQ(f.offset, 0u);
    EXPECT_MESSAGE(f, "header length 18446744073709551615 exceeds the cap of 100000000");
    put_u64(b, 0, 1000);
    EXPECT_MESSAGE(st_failure(b, b.size()), "header length 1000 runs past the end of the file (16 bytes)");
}

TEST(HostileSafetensors, MalformedHeaders) {
    const std::pair<std::string, std::string> cases[] = {
        {"[1,2,3]", "header is not a JSON object"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}", "header is not valid JSON"},
        {"{\"\xff\xfe\": {}}", "header is not valid JSON"},  // invalid UTF-8
        {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
         "duplicate key 'a'"},
        {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "shape x dtype is 8 bytes but data_offsets span 4"},
        {R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "expected a non-negative integer"},
        {R"({"a":{"shape":[1],"data_offsets":[0,4]}})", "missing or non-string \"dtype\""},
        {R"({"__metadata__":[1]})", "__metadata__ must be an object or null"},
    };
    for (const auto& [json, want] : cases) {
        SCOPED_TRACE(json);
        std::vector<uint8_t> b = raw_header(json);
        b.resize(b.size() + 8, 0);
        EXPECT_MESSAGE(st_failure(b, b.size()), want);
    }
}

TEST(HostileSafetensors, DataLayoutMustTileTheFile) {
    struct Case {
        std::string json;
        uint64_t data;
        std::string want;
    };
    const Case cases[] = {
        {R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})", 12,
         "hole in the data: bytes [4, 8)"},
        {R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})", 8,
         "overlap the previous tensor"},
        {R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 10, "6 trailing bytes after the last tensor's data"},
        {R"({"a":{"dtype":"U8","shape":[16],"data_offsets":[0,16]}})", 8, "past the 8 data bytes in the file"},
        {R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[4,0]}})", 4, "end before they begin"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.json);
        std::vector<uint8_t> b = raw_header(c.json);
        uint64_t size = b.size() + c.data;
        Failure f = st_failure(b, size);
        EXPECT_MESSAGE(f, c.want);
        EXPECT_GE(f.offset, 8u);
    }
}

TEST(HostileSafetensors, EveryTruncationIsAnError) {
    kit::SafetensorsWriter w;
    w.add("x", "F16", {3, 2});
    w.add("y", "I64", {2});
    w.set_metadata({{"format", "pt"}});
    std::vector<uint8_t> b = w.header();
    b.resize(w.file_size(), 0);
    for (size_t k = 0; k < b.size(); ++k) {
        try {
            format::parse_safetensors(std::span(b).first(k), k);
            FAIL() << "cut at " << k << " parsed";
        } catch (const format::FormatError& e) {
            EXPECT_LE(e.offset(), k) << e.what();
        }
    }
}

}  // namespace
