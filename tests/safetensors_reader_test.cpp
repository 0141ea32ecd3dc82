#include <gtest/gtest.h>

#include "format/parse_result.hpp"
#include "format/safetensors.hpp"
#include "kit/safetensors_writer.hpp"

using namespace modelcat;

namespace {

model::FileHeader parse(const kit::SafetensorsWriter& w) {
    std::vector<uint8_t> b = w.header();
    auto r = format::parse_safetensors(b, w.file_size());
    EXPECT_TRUE(std::holds_alternative<model::FileHeader>(r));
    return std::get<model::FileHeader>(std::move(r));
}

TEST(SafetensorsReader, EveryDtypeRoundTrips) {
    const std::pair<const char*, uint64_t> dtypes[] = {
        {"BOOL", 12},   {"U8", 12},     {"I8", 12},    {"F8_E4M3", 12}, {"F8_E5M2", 12}, {"F8_E8M0", 12},
        {"U16", 24},    {"I16", 24},    {"F16", 24},   {"BF16", 24},    {"U32", 48},     {"I32", 48},
        {"F32", 48},    {"U64", 96},    {"I64", 96},   {"F64", 96},     {"C64", 96},     {"F4", 6},
        {"F6_E2M3", 9}, {"F6_E3M2", 9},
    };
    kit::SafetensorsWriter w;
    for (const auto& [d, bytes] : dtypes) w.add(std::string("t.") + d, d, {3, 4});
    w.set_metadata({{"format", "pt"}, {"note", "é"}});
    model::FileHeader h = parse(w);
    EXPECT_EQ(h.format, model::Format::safetensors);
    EXPECT_EQ(h.header_bytes, 8 + w.header_length());
    ASSERT_EQ(h.tensors.size(), std::size(dtypes));
    uint64_t offset = 0;
    for (size_t i = 0; i < h.tensors.size(); ++i) {
        const auto& t = h.tensors[i];
        SCOPED_TRACE(t.name);
        EXPECT_EQ(t.type_name, dtypes[i].first);
        EXPECT_EQ(t.dims, (std::vector<uint64_t>{3, 4}));
        EXPECT_EQ(t.n_elements, 12u);
        EXPECT_EQ(t.bytes, dtypes[i].second);
        EXPECT_EQ(t.expected_bytes, dtypes[i].second);
        EXPECT_EQ(t.offset, offset);
        EXPECT_FALSE(t.type_id.has_value());
        offset += t.bytes;
    }
    ASSERT_EQ(h.metadata.size(), 2u);
    EXPECT_EQ(h.metadata[0].key, "format");
    EXPECT_EQ(std::get<std::string>(h.metadata[0].value), "pt");
    EXPECT_EQ(std::get<std::string>(h.metadata[1].value), "é");
    EXPECT_TRUE(h.warnings.empty());
}

TEST(SafetensorsReader, MetadataNullAbsentAndUnpaddedHeaders) {
    kit::SafetensorsWriter w;
    w.add("a", "F32", {2});
    w.set_metadata_null();
    w.pad_to_multiple(1);
    model::FileHeader h = parse(w);
    EXPECT_TRUE(h.metadata.empty());
    EXPECT_EQ(h.header_bytes, 8 + w.json().size());
}

TEST(SafetensorsReader, UnknownDtypeIsKeptWithAWarning) {
    kit::SafetensorsWriter w;
    w.add_at("a", "I4", {16}, 0, 8);
    model::FileHeader h = parse(w);
    ASSERT_EQ(h.tensors.size(), 1u);
    EXPECT_EQ(h.tensors[0].type_name, "I4");
    EXPECT_EQ(h.tensors[0].bytes, 8u);
    EXPECT_FALSE(h.tensors[0].expected_bytes.has_value());
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_NE(h.warnings[0].message.find("unknown dtype 'I4'"), std::string::npos);
}

TEST(SafetensorsReader, ShortPrefixAsksForTheWholeHeader) {
    kit::SafetensorsWriter w;
    w.add("a", "F32", {2});
    std::vector<uint8_t> b = w.header();
    auto r = format::parse_safetensors(std::span(b).first(4), w.file_size());
    ASSERT_TRUE(std::holds_alternative<format::NeedMore>(r));
    EXPECT_EQ(std::get<format::NeedMore>(r).min_bytes, 8u);
    r = format::parse_safetensors(std::span(b).first(20), w.file_size());
    ASSERT_TRUE(std::holds_alternative<format::NeedMore>(r));
    EXPECT_EQ(std::get<format::NeedMore>(r).min_bytes, b.size());
    EXPECT_EQ(std::get<format::NeedMore>(r).estimated_total, b.size());
}

}  // namespace
