// The UTF-8 policy per field: GGUF keys and tensor names must be UTF-8 (an
// error at the first bad byte); string values that are not are stored in a
// reversible escaped form with a warning; messages quote bad bytes as \xNN.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "format/gguf.hpp"
#include "kit/gguf_writer.hpp"
#include "model/error.hpp"
#include "model/utf8.hpp"

using namespace modelcat;
using kit::GgufValue;
using kit::GgufWriter;

namespace {

model::FormatError parse_error(const GgufWriter& w) {
    std::vector<uint8_t> bytes = w.header();
    try {
        format::parse_gguf(bytes, w.file_size());
    } catch (const model::FormatError& e) {
        return e;
    }
    ADD_FAILURE() << "parsed";
    return model::FormatError(0, "");
}

bool valid(std::string_view s) { return !model::first_invalid_utf8(s); }

TEST(Utf8, RecognisesValidAndInvalidSequences) {
    EXPECT_TRUE(valid("plain ascii \x1b[0m"));
    EXPECT_TRUE(valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    EXPECT_EQ(model::first_invalid_utf8("ab\xff"), 2u);
    EXPECT_EQ(model::first_invalid_utf8("\xc0\xaf"), 0u);          // overlong '/'
    EXPECT_EQ(model::first_invalid_utf8("x\xed\xa0\x80"), 1u);     // a surrogate
    EXPECT_EQ(model::first_invalid_utf8("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
    EXPECT_EQ(model::first_invalid_utf8("\xe2\x82"), 0u);          // cut short
}

TEST(Utf8, QuotesBadBytesAsHex) {
    EXPECT_EQ(model::quote_bytes("g\xab\xabWd6:W\x8blignment"), "g\\xab\\xabWd6:W\\x8blignment");
    EXPECT_EQ(model::quote_bytes("caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST(Utf8, EscapedFormIsValidAndReversibleForAnyBytes) {
    std::mt19937 rng(15);
    for (int i = 0; i < 5000; ++i) {
        std::string s(rng() % 24, '\0');
        for (char& c : s) c = static_cast<char>(rng() % 4 == 0 ? '\\' : rng() % 256);
        std::string e = model::escape_invalid_utf8(s);
        ASSERT_TRUE(valid(e));
        ASSERT_EQ(model::unescape_invalid_utf8(e), s);
    }
    EXPECT_EQ(model::escape_invalid_utf8("a\\b\xff"), "a\\\\b\\xff");
}

// The one elision of the terminal table and the HTML report: never wider than asked, even at
// widths of 0 to 2 (a table squeezed to its floor), whole characters only, a bad byte one character.
TEST(Utf8, ElisionFitsEveryWidthInWholeCharacters) {
    const std::string name = "Meta-Llama-3.1-8B-Instruct-Q4_K_M", accents = "\u00e9\u00e8\u00ea\u00eb\u00e0\u00e2";
    for (size_t max = 0; max <= name.size() + 1; ++max) {
        EXPECT_EQ(model::utf8_length(model::elide_middle(name, max)), std::min(max, name.size())) << max;
        EXPECT_EQ(model::utf8_length(model::elide_end(name, max)), std::min(max, name.size())) << max;
        EXPECT_FALSE(model::first_invalid_utf8(model::elide_middle(accents, max))) << max;
        EXPECT_FALSE(model::first_invalid_utf8(model::elide_end(accents, max))) << max;
    }
    EXPECT_EQ(model::elide_middle(name, 1), "\u2026");
    EXPECT_EQ(model::elide_middle(name, 2), "\u2026M");
    EXPECT_EQ(model::elide_end(name, 5), "Meta\u2026");
    EXPECT_EQ(model::elide_middle(accents, 3), "\u00e9\u2026\u00e2");
    EXPECT_EQ(model::utf8_length("a\xff\xc3\xa9"), 3u);
    EXPECT_EQ(model::elide_middle("ab\xff\xfe" "cd", 3), "a\u2026d");
}

TEST(GgufUtf8, KeyThatIsNotUtf8FailsTheFileAtItsByte) {
    for (uint32_t version : {1u, 3u}) {
        GgufWriter w(version);
        w.add_kv("general.architecture", GgufValue::str("llama"));
        w.add_kv("g\xab\xabWd6:W\x8blignment", GgufValue::u32(32));
        model::FormatError e = parse_error(w);
        EXPECT_EQ(e.offset(), w.kv_offset(1) + (version == 1 ? 4 : 8) + 1) << e.what();
        EXPECT_STREQ(e.what(), ("metadata key 1 is not valid UTF-8 (byte \\xab at offset " + std::to_string(e.offset().value_or(0)) +
                                "): 'g\\xab\\xabWd6:W\\x8blignment'").c_str());
    }
}

TEST(GgufUtf8, TensorNameThatIsNotUtf8FailsTheFileAtItsByte) {
    GgufWriter w;
    w.add_tensor("blk.0.ok", {8}, 0);
    w.add_tensor("blk.1.\xc3(", {8}, 0);
    model::FormatError e = parse_error(w);
    EXPECT_EQ(e.offset(), w.tensor_info_offset(1) + 8 + 6) << e.what();
    EXPECT_NE(std::string(e.what()).find("tensor 1's name is not valid UTF-8 (byte \\xc3"), std::string::npos) << e.what();
    EXPECT_TRUE(valid(e.what()));
}

TEST(GgufUtf8, StringValueThatIsNotUtf8IsStoredEscapedWithAWarning) {
    const std::string raw = "caf\xe9 \\ ok \xf0\x9f\x98\x80";
    GgufWriter w;
    w.add_kv("general.name", GgufValue::str(raw));
    w.add_kv("general.description", GgufValue::str("fine \\ as is"));
    model::FileHeader h = kit::parse_header(w);
    ASSERT_EQ(h.metadata.size(), 2u);
    const std::string& stored = std::get<std::string>(h.metadata[0].value);
    EXPECT_EQ(stored, "caf\\xe9 \\\\ ok \xf0\x9f\x98\x80");
    EXPECT_EQ(model::unescape_invalid_utf8(stored), raw);
    EXPECT_EQ(std::get<std::string>(h.metadata[1].value), "fine \\ as is");  // valid strings stay exact
    ASSERT_EQ(h.warnings.size(), 1u);
    EXPECT_EQ(h.warnings[0].offset, w.kv_offset(0));
    EXPECT_NE(h.warnings[0].message.find("key 'general.name': string value is not valid UTF-8 (byte \\xe9 at 3 of"),
              std::string::npos)
        << h.warnings[0].message;
}

}  // namespace
