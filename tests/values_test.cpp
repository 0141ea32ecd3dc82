// Metadata values round-trip through the catalogue exactly: a GGUF holding
// every value type and the strings SQLite's NUMERIC affinity used to turn into
// numbers, a safetensors __metadata__ and a config.json, crawled by the binary
// and read back from SQLite with their storage class and bits.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <variant>

#include "kit/gguf_writer.hpp"
#include "kit/safetensors_writer.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufValue;
namespace fs = std::filesystem;

namespace {

// What a value must read back as: its SQLite storage class and content
// (doubles compared bit for bit, so -0.0 is not 0.0).
struct Want {
    std::string value_type;
    std::variant<int64_t, double, std::string, std::monostate> value;
};

std::string describe(const SQLite::Column& c) {
    switch (c.getType()) {
        case SQLITE_INTEGER: return "INTEGER " + std::to_string(c.getInt64());
        case SQLITE_FLOAT: return "REAL bits " + std::to_string(std::bit_cast<uint64_t>(c.getDouble()));
        case SQLITE_TEXT: return "TEXT '" + c.getString() + "'";
        case SQLITE_NULL: return "NULL";
        default: return "BLOB";
    }
}

std::string describe(const Want& w) {
    if (auto* i = std::get_if<int64_t>(&w.value)) return "INTEGER " + std::to_string(*i);
    if (auto* d = std::get_if<double>(&w.value)) return "REAL bits " + std::to_string(std::bit_cast<uint64_t>(*d));
    if (auto* s = std::get_if<std::string>(&w.value)) return "TEXT '" + *s + "'";
    return "NULL";
}

// Every key of `file` as stored: value_type and the value, described alike.
std::map<std::string, std::pair<std::string, std::string>> stored(const fs::path& db, const fs::path& file) {
    SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement st(d, "SELECT m.key, m.value_type, m.value FROM metadata m JOIN files f USING (file_id) WHERE f.location = ?");
    st.bind(1, file.string());
    std::map<std::string, std::pair<std::string, std::string>> out;
    while (st.executeStep()) out[st.getColumn(0).getString()] = {st.getColumn(1).getString(), describe(st.getColumn(2))};
    return out;
}

void expect_stored(const fs::path& db, const fs::path& file, const std::map<std::string, Want>& want) {
    auto got = stored(db, file);
    EXPECT_EQ(got.size(), want.size());
    for (const auto& [key, w] : want) {
        auto it = got.find(key);
        ASSERT_NE(it, got.end()) << key;
        EXPECT_EQ(it->second.first, w.value_type) << key;
        EXPECT_EQ(it->second.second, describe(w)) << key;
    }
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

TEST(MetadataValues, EveryGgufValueTypeRoundTripsExactly) {
    test::TempDir tmp;
    const std::vector<std::pair<std::string, std::pair<GgufValue, Want>>> kvs = {
        {"s.leading_zero", {GgufValue::str("0123"), {"string", std::string("0123")}}},
        {"s.zeros", {GgufValue::str("007"), {"string", std::string("007")}}},
        {"s.version", {GgufValue::str("3.10"), {"string", std::string("3.10")}}},
        {"s.exponent", {GgufValue::str("1e5"), {"string", std::string("1e5")}}},
        {"s.space", {GgufValue::str(" 42"), {"string", std::string(" 42")}}},
        {"s.empty", {GgufValue::str(""), {"string", std::string("")}}},
        {"s.non_ascii", {GgufValue::str("Ünïcødé 模型 🦙"), {"string", std::string("Ünïcødé 模型 🦙")}}},
        {"s.u64_digits", {GgufValue::str("18446744073709551615"), {"string", std::string("18446744073709551615")}}},
        {"s.nan_word", {GgufValue::str("NaN"), {"string", std::string("NaN")}}},
        {"s.minus_zero", {GgufValue::str("-0"), {"string", std::string("-0")}}},
        {"u8", {GgufValue::u8(255), {"uint8", int64_t{255}}}},
        {"i8", {GgufValue::i8(-128), {"int8", int64_t{-128}}}},
        {"u16", {GgufValue::u16(65535), {"uint16", int64_t{65535}}}},
        {"i16", {GgufValue::i16(-32768), {"int16", int64_t{-32768}}}},
        {"u32", {GgufValue::u32(4294967295u), {"uint32", int64_t{4294967295}}}},
        {"i32", {GgufValue::i32(INT32_MIN), {"int32", int64_t{INT32_MIN}}}},
        {"u64.max", {GgufValue::u64(kU64Max), {"uint64", std::string("18446744073709551615")}}},
        {"u64.two_pow_63", {GgufValue::u64(1ull << 63), {"uint64", std::string("9223372036854775808")}}},
        {"u64.i64_max", {GgufValue::u64(INT64_MAX), {"uint64", int64_t{INT64_MAX}}}},
        {"i64.min", {GgufValue::i64(kI64Min), {"int64", kI64Min}}},
        {"i64.max", {GgufValue::i64(INT64_MAX), {"int64", int64_t{INT64_MAX}}}},
        {"f32.nan", {GgufValue::f32(std::numeric_limits<float>::quiet_NaN()), {"float32", std::string("NaN")}}},
        {"f32.inf", {GgufValue::f32(std::numeric_limits<float>::infinity()), {"float32", kInf}}},
        {"f32.minus_inf", {GgufValue::f32(-std::numeric_limits<float>::infinity()), {"float32", -kInf}}},
        {"f32.minus_zero", {GgufValue::f32(-0.0f), {"float32", -0.0}}},
        {"f32.one", {GgufValue::f32(1.0f), {"float32", 1.0}}},
        {"f32.tenth", {GgufValue::f32(0.1f), {"float32", double{0.1f}}}},
        {"f32.max", {GgufValue::f32(std::numeric_limits<float>::max()), {"float32", double{std::numeric_limits<float>::max()}}}},
        {"f64.nan", {GgufValue::f64(std::nan("")), {"float64", std::string("NaN")}}},
        {"f64.minus_inf", {GgufValue::f64(-kInf), {"float64", -kInf}}},
        {"f64.minus_zero", {GgufValue::f64(-0.0), {"float64", -0.0}}},
        {"f64.three", {GgufValue::f64(3.0), {"float64", 3.0}}},
        {"f64.huge_integral", {GgufValue::f64(1e300), {"float64", 1e300}}},
        {"f64.denormal", {GgufValue::f64(std::numeric_limits<double>::denorm_min()), {"float64", std::numeric_limits<double>::denorm_min()}}},
        {"bool.true", {GgufValue::boolean(true), {"bool", int64_t{1}}}},
        {"bool.false", {GgufValue::boolean(false), {"bool", int64_t{0}}}},
        {"a.u8", {GgufValue::array(kit::GgufType::u8, {GgufValue::u8(1), GgufValue::u8(2)}), {"array", std::string("[1,2]")}}},
        {"a.strings", {GgufValue::string_array({"0123", "1e5", ""}), {"array", std::string(R"(["0123","1e5",""])")}}},
        {"a.numeric_looking", {GgufValue::array(kit::GgufType::i32, {GgufValue::i32(7)}), {"array", std::string("[7]")}}},
    };
    kit::GgufWriter w;
    std::map<std::string, Want> want;
    for (const auto& [key, vw] : kvs) {
        w.add_kv(key, vw.first);
        want[key] = vw.second;
    }
    const fs::path file = tmp / "values.gguf";
    w.write(file);
    test::CommandResult r = test::run_modelcat("crawl -q --db " + (tmp / "c.db").string() + " " + file.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_stored(tmp / "c.db", file, want);
}

TEST(MetadataValues, SafetensorsMetadataAndConfigJsonRoundTripExactly) {
    test::TempDir tmp;
    const fs::path dir = tmp / "checkpoint";
    fs::create_directories(dir);
    kit::SafetensorsWriter st;
    st.add("w", "F32", {2});
    st.set_metadata({{"format", "pt"}, {"version", "3.10"}, {"id", "0123"}, {"big", "1e5"}, {"blank", ""}});
    st.write(dir / "model.safetensors");
    std::ofstream(dir / "config.json") << R"({"model_type": "llama", "name": "007", "rope_theta": 500000.0, "eps": 1e-05,
        "negative_zero": -0.0, "max_u64": 18446744073709551615, "min_i64": -9223372036854775808, "tie": false,
        "layers": [1, "2"], "nothing": null})";
    test::CommandResult r = test::run_modelcat("crawl -q --db " + (tmp / "c.db").string() + " " + dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_stored(tmp / "c.db", dir / "model.safetensors",
                  {{"format", {"string", std::string("pt")}}, {"version", {"string", std::string("3.10")}},
                   {"id", {"string", std::string("0123")}}, {"big", {"string", std::string("1e5")}},
                   {"blank", {"string", std::string("")}}});
    expect_stored(tmp / "c.db", dir / "config.json",
                  {{"model_type", {"string", std::string("llama")}}, {"name", {"string", std::string("007")}},
                   {"rope_theta", {"float64", 500000.0}}, {"eps", {"float64", 1e-05}},
                   {"negative_zero", {"float64", -0.0}},
                   {"max_u64", {"uint64", std::string("18446744073709551615")}}, {"min_i64", {"int64", kI64Min}},
                   {"tie", {"bool", int64_t{0}}}, {"layers", {"array", std::string(R"([1,"2"])")}},
                   {"nothing", {"string", std::string("null")}}});
}

}  // namespace
