// Human tables, machine formats (issue 21): `-f table` shows type names, binary sizes and
// grouped counts and fits $COLUMNS; plain, csv and json keep the raw values; --columns and
// --wide pick columns; a location column tells two repos apart; a pattern without % is a
// substring; `show --json` and `diff --metadata`. Everything through the binary.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "catalog/embedded_sql.hpp"
#include "catalog/query.hpp"
#include "kit/gguf_writer.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

const std::string kQ4KM = "Meta-Llama-3.1-8B-Instruct-Q4_K_M";

std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

size_t cells(const std::string& line) {  // terminal cells: code points
    size_t n = 0;
    for (unsigned char c : line) n += (c & 0xC0) != 0x80;
    return n;
}

// A small GGUF whose metadata `extra` sets (each key to a string).
void write_small(const fs::path& path, const std::vector<std::pair<std::string, kit::GgufValue>>& extra = {}, uint64_t rows = 8) {
    fs::create_directories(path.parent_path());
    kit::GgufWriter w;
    w.add_kv("general.architecture", kit::GgufValue::str("llama"));
    for (const auto& [k, v] : extra) w.add_kv(k, v);
    w.add_tensor("token_embd.weight", {32, rows}, kit::kQ8_0);
    w.add_tensor("output_norm.weight", {32}, kit::kF32);
    w.write(path, kit::DataMode::zeros);
}

class HumanTables : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        test::copy_llama31_lineup(dir_->path() / "lineup");
        write_small(dir_->path() / "repoA" / "tiny-Q8_0.gguf");
        write_small(dir_->path() / "repoB" / "tiny-Q8_0.gguf", {}, 16);
        test::CommandResult c = test::run_modelcat("crawl --db " + db() + " " + (dir_->path() / "lineup").string() + " " +
                                                   (dir_->path() / "repoA").string() + " " + (dir_->path() / "repoB").string());
        ASSERT_EQ(c.exit_code, 0) << c.err;
    }
    static void TearDownTestSuite() { delete dir_; }
    static std::string db() { return (dir_->path() / "c.db").string(); }
    static test::CommandResult query(const std::string& args, const std::string& columns = "120") {
        return test::run_modelcat("query " + args + " --db " + db(), "export COLUMNS=" + columns + ";");
    }
    static inline test::TempDir* dir_;
};

// The parameters each bundled report needs on this catalogue.
std::string params_for(const std::string& report) {
    const std::string a = " -p a=" + kQ4KM + " -p b=Meta-Llama-3.1-8B-Instruct-Q4_K_L";
    if (report == "policy") return " -p model=" + kQ4KM;
    if (report == "diff" || report == "diff_metadata") return a;
    if (report == "reconcile") return " -p gguf=" + kQ4KM + " -p source=Meta-Llama-3.1-8B-Instruct-Q6_K";
    if (report == "fits") return " -p vram=8GiB";
    return "";
}

TEST_F(HumanTables, EveryBundledReportFitsTheTerminal) {
    size_t checked = 0;
    for (const auto& r : catalog::bundled_queries()) {
        const std::string name(r.name);
        for (const std::string width : {"120", "80"}) {
            test::CommandResult t = query(name + params_for(name) + " -f table", width);
            ASSERT_EQ(t.exit_code, 0) << name << ": " << t.err;
            ASSERT_FALSE(t.out.empty()) << name;
            for (const auto& l : lines(t.out)) EXPECT_LE(cells(l), std::stoul(width)) << name << " at " << width << ":\n" << t.out;
        }
        ++checked;
    }
    EXPECT_GE(checked, 19u);
    // quant_summary at 120 shows its own columns, all of them
    test::CommandResult q = query("quant_summary -f table");
    EXPECT_EQ(lines(q.out)[0].substr(0, 4), "name") << q.out;
    for (const char* h : {"location", "file_type", "size", "params", "bpw", "census"}) EXPECT_NE(lines(q.out)[0].find(h), std::string::npos) << h;
    EXPECT_EQ(q.out.find("not shown"), std::string::npos) << q.out;
}

TEST_F(HumanTables, TableNamesTypesAndUnitsOtherFormatsKeepRawValues) {
    test::CommandResult t = query("quants -p pattern=" + kQ4KM + " --columns name,census,file_bytes,params -f table");
    ASSERT_EQ(t.exit_code, 0) << t.err;
    EXPECT_NE(t.out.find("Q4_K:193 Q6_K:33 F32:66"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("4.58 GiB"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("8.03 B"), std::string::npos) << t.out;
    EXPECT_EQ(t.out.find("4920739232"), std::string::npos) << t.out;
    // the default when stdout is not a terminal: plain, the raw values (as before this change)
    test::CommandResult plain = query("quants -p pattern=" + kQ4KM);
    for (const auto& fmt : {std::string(""), std::string(" -f plain"), std::string(" -f csv"), std::string(" -f json"), std::string(" -f markdown")}) {
        test::CommandResult r = query("quants -p pattern=" + kQ4KM + fmt);
        EXPECT_NE(r.out.find("12:193 14:33 0:66"), std::string::npos) << fmt << r.out;
        EXPECT_NE(r.out.find("4920739232"), std::string::npos) << fmt << r.out;
        EXPECT_NE(r.out.find("8030261312"), std::string::npos) << fmt << r.out;
        EXPECT_EQ(r.out.find("GiB"), std::string::npos) << fmt << r.out;
    }
    // thousands separators for counts (tensor bytes per type in type_census)
    test::CommandResult tc = query("type_census -p pattern=" + kQ4KM + " --columns name,type_name,tensors,params,bytes -f table");
    EXPECT_NE(tc.out.find("Q4_K"), std::string::npos) << tc.out;
    EXPECT_NE(tc.out.find(" GiB"), std::string::npos) << tc.out;
    test::CommandResult log = query("crawl_log --columns crawl_id,tensors -f table");
    EXPECT_NE(log.out.find(","), std::string::npos) << "a count over 999 is grouped: " << log.out;
}

TEST_F(HumanTables, ColumnsPicksInEveryFormatWideShowsEverything) {
    test::CommandResult csv = query("quant_summary -p pattern=" + kQ4KM + " --columns census,name -f csv");
    EXPECT_EQ(csv.out, "census,name\n12:193 14:33 0:66," + kQ4KM + "\n");
    test::CommandResult table = query("quant_summary -p pattern=" + kQ4KM + " --columns name,kv_count -f table");
    EXPECT_EQ(lines(table.out)[0], "name                               kv_count") << table.out;
    test::CommandResult wide = query("quant_summary --wide -f table");
    for (const char* h : {"format", "kind", "architecture", "file_type_name", "gib", "tensor_count", "kv_count", "census", "location"})
        EXPECT_NE(lines(wide.out)[0].find(h), std::string::npos) << h << "\n" << wide.out;
    EXPECT_GT(cells(lines(wide.out)[0]), 120u) << "--wide does not fit the width";
    test::CommandResult unknown = query("quant_summary --columns name,nope -f table");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("no column 'nope'"), std::string::npos) << unknown.err;
}

TEST_F(HumanTables, LongNamesAreElidedInTheMiddle) {
    test::CommandResult t = query("quant_summary -p pattern=Meta -f table", "60");
    ASSERT_EQ(t.exit_code, 0) << t.err;
    bool elided = false;
    for (const auto& l : lines(t.out)) {
        EXPECT_LE(cells(l), 60u) << t.out;
        if (l.starts_with("Meta-Lla") && l.find("\xe2\x80\xa6") != std::string::npos) elided = true;
    }
    EXPECT_TRUE(elided) << t.out;
    EXPECT_NE(t.out.find("Q4_K_M"), std::string::npos) << "the tail stays: " << t.out;
}

TEST_F(HumanTables, LocationTellsTwoReposApart) {
    test::CommandResult t = query("quant_summary -p pattern=tiny -f table");
    ASSERT_EQ(t.exit_code, 0) << t.err;
    std::vector<std::string> rows;
    for (const auto& l : lines(t.out))
        if (l.starts_with("tiny-Q8_0")) rows.push_back(l);
    ASSERT_EQ(rows.size(), 2u) << t.out;
    EXPECT_NE(rows[0], rows[1]);
    EXPECT_NE(t.out.find("repoA/"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("repoB/"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("under " + dir_->path().string() + "/"), std::string::npos) << t.out;
    test::CommandResult csv = query("quants -p pattern=tiny --columns location -f csv");
    EXPECT_EQ(csv.out, "location\n" + (dir_->path() / "repoA" / "tiny-Q8_0.gguf").string() + "\n" +
                           (dir_->path() / "repoB" / "tiny-Q8_0.gguf").string() + "\n");
}

TEST_F(HumanTables, APatternWithoutPercentIsASubstring) {
    auto names = [](const std::string& args) {
        test::CommandResult r = query(args + " --columns name -f csv");
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return lines(r.out);
    };
    EXPECT_EQ(names("quants -p pattern=Q4_K_M"), (std::vector<std::string>{"name", kQ4KM}));
    EXPECT_EQ(names("quant_summary -p pattern=Q4_K").size(), 4u);  // Q4_K_S, Q4_K_M, Q4_K_L
    EXPECT_EQ(names("quant_summary -p pattern=Meta-Llama-3.1-8B-Instruct-Q6%"), (std::vector<std::string>{"name", "Meta-Llama-3.1-8B-Instruct-Q6_K"}));
    EXPECT_EQ(names("quant_summary -p pattern=Instruct-Q8").size(), 2u);  // LIKE with no %: not an exact match
    EXPECT_EQ(names("type_census -p pattern=Q8_0").size(), 1u + 3 * 2u);  // the lineup's Q8_0 and two tiny ones, 2 types each
}

// --limit N: the first N rows of the whole result, in every format, and a line on stderr when
// more follow; none when the result has no more than N rows.
TEST_F(HumanTables, LimitPrintsTheFirstRowsAndSaysMoreFollow) {
    const std::vector<std::string> all = lines(query("recipes --columns name -f csv").out);
    ASSERT_EQ(all.size(), 11u);  // the header, the lineup's 8 and the two tiny ones
    test::CommandResult three = query("recipes --columns name -f csv --limit 3");
    ASSERT_EQ(three.exit_code, 0) << three.err;
    EXPECT_EQ(lines(three.out), std::vector<std::string>(all.begin(), all.begin() + 4));
    EXPECT_EQ(three.err, "modelcat query: the first 3 rows; more follow (--limit 0: every row)\n");
    test::CommandResult json = query("recipes --columns name -f json --limit 2");
    EXPECT_EQ(json.out, "[\n {\"name\": \"" + all[1] + "\"},\n {\"name\": \"" + all[2] + "\"}\n]\n");
    test::CommandResult table = query("recipes --columns name -f table --limit 1");
    EXPECT_EQ(lines(table.out).size(), 3u) << table.out;  // heading, rule, one row
    for (const char* whole : {" --limit 10", " --limit 0", ""}) {
        test::CommandResult r = query(std::string("recipes --columns name -f csv") + whole);
        EXPECT_EQ(lines(r.out), all) << whole;
        EXPECT_EQ(r.err, "") << whole;
    }
}

TEST_F(HumanTables, ShowJsonIsTheHeaderParsedBack) {
    const fs::path f = dir_->path() / "crafted.gguf";
    std::vector<std::string> long_array(100, "t");
    write_small(f, {{"general.name", kit::GgufValue::str("quote\" back\\ nl\n tab\t esc\x1b[31m é")},
                    {"x.big", kit::GgufValue::u64(18446744073709551615ull)},
                    {"x.neg", kit::GgufValue::i64(-9223372036854775807ll - 1)},
                    {"x.f32", kit::GgufValue::f32(0.1f)},
                    {"x.flag", kit::GgufValue::boolean(true)},
                    {"x.short", kit::GgufValue::i32_array({1, -2, 3})},
                    {"x.long", kit::GgufValue::string_array(long_array)}});
    test::CommandResult r = test::run_modelcat("show --json " + f.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::first_control_character(r.out), "");
    std::ofstream(dir_->path() / "show.json") << r.out;
    const std::string check =
        "import json,sys; h=json.load(open(sys.argv[1])); m=h['metadata']; t=h['tensors'];"
        "print(repr(m['general.name']['value'])); print(m['x.big']['value'], m['x.neg']['value'], m['x.f32']['value'],"
        " m['x.flag']['value'], m['x.short']['values'], m['x.short']['length']);"
        "print(m['x.long']['length'], m['x.long']['element_type'], 'values' in m['x.long'], len(m['x.long']['hash']));"
        "print(h['format'], h['version'], len(t), t[0]['name'], t[0]['type'], t[0]['type_id'], t[0]['dims'], t[1]['bytes']);"
        "print(list(m)[:2])";
    test::CommandResult py = test::run_command("python3 -c \"" + check + "\" " + (dir_->path() / "show.json").string());
    ASSERT_EQ(py.exit_code, 0) << py.err << r.out;
    EXPECT_EQ(py.out,
              "'quote\" back\\\\ nl\\n tab\\t esc\\x1b[31m é'\n"
              "18446744073709551615 -9223372036854775808 0.10000000149011612 True [1, -2, 3] 3\n"
              "100 string False 16\n"
              "gguf 3 2 token_embd.weight Q8_0 8 [32, 8] 128\n"
              "['general.architecture', 'general.name']\n");
}

TEST_F(HumanTables, DiffMetadataListsKeysAndExitsLikeDiff) {
    const fs::path a = dir_->path() / "d" / "a.gguf", same = dir_->path() / "d" / "same.gguf", b = dir_->path() / "d" / "b.gguf";
    write_small(a, {{"general.name", kit::GgufValue::str("one")}, {"x.gone", kit::GgufValue::u32(7)}});
    write_small(same, {{"general.name", kit::GgufValue::str("one")}, {"x.gone", kit::GgufValue::u32(7)}});
    write_small(b, {{"general.name", kit::GgufValue::str("two")}, {"x.new", kit::GgufValue::boolean(true)}});
    test::CommandResult equal = test::run_modelcat("diff --metadata " + a.string() + " " + same.string());
    EXPECT_EQ(equal.exit_code, 0) << equal.out << equal.err;
    EXPECT_NE(equal.err.find("identical"), std::string::npos) << equal.err;
    test::CommandResult tensors_only = test::run_modelcat("diff " + a.string() + " " + b.string());
    EXPECT_EQ(tensors_only.exit_code, 0) << "same tensors, metadata not compared: " << tensors_only.out;
    test::CommandResult d = test::run_modelcat("diff --metadata -f csv " + a.string() + " " + b.string());
    EXPECT_EQ(d.exit_code, 1) << d.err;
    EXPECT_EQ(d.out, "key,change,a_type,b_type,a_value,b_value\n"
                     "x.new,added,,bool,,1\n"
                     "general.name,changed,string,string,one,two\n"
                     "x.gone,removed,uint32,,7,\n") << d.out;
    test::CommandResult json = test::run_modelcat("diff --metadata -f json " + a.string() + " " + b.string());
    EXPECT_EQ(json.exit_code, 1);
    std::ofstream(dir_->path() / "diff.json") << json.out;
    test::CommandResult py = test::run_command("python3 -c \"import json,sys; d=json.load(open(sys.argv[1]));"
                                               " print(len(d['tensors']), [r['key'] for r in d['metadata']])\" " +
                                               (dir_->path() / "diff.json").string());
    EXPECT_EQ(py.out, "0 ['x.new', 'general.name', 'x.gone']\n") << py.err << json.out;
    test::CommandResult missing = test::run_modelcat("diff --metadata " + a.string() + " " + (dir_->path() / "nope.gguf").string());
    EXPECT_EQ(missing.exit_code, 2);
}

// diff_metadata reads the two models' rows by index (files_model, then metadata's primary key),
// whatever the catalogue's size: no step of its plan scans metadata or files.
TEST_F(HumanTables, DiffMetadataReadsOnlyTheTwoModels) {
    SQLite::Database catalogue(db(), SQLite::OPEN_READONLY);
    SQLite::Statement plan(catalogue, "EXPLAIN QUERY PLAN " + std::string(*catalog::bundled_query("diff_metadata")));
    plan.bind(":a", 1), plan.bind(":b", 2);
    std::string steps;
    while (plan.executeStep()) steps += plan.getColumn(3).getString() + "\n";
    EXPECT_NE(steps.find("SEARCH m USING PRIMARY KEY"), std::string::npos) << steps;
    EXPECT_NE(steps.find("SEARCH f USING INDEX files_model"), std::string::npos) << steps;
    EXPECT_EQ(steps.find("SCAN m"), std::string::npos) << steps;
    EXPECT_EQ(steps.find("SCAN f"), std::string::npos) << steps;
    EXPECT_EQ(test::run_modelcat("query diff_metadata -p a=" + kQ4KM + " -p b=Meta-Llama-3.1-8B-Instruct-Q4_K_L --db " + db()).out,
              "key  change  a_type  b_type  a_value  b_value\n---  ------  ------  ------  -------  -------\n")
        << "the lineup's quants share their metadata";
}

}  // namespace
