// No control character from a file reaches a terminal: keys, values, tensor
// names, file names and error messages holding escape sequences are printed
// escaped by the table, plain, markdown and csv formats, `show` and every stderr
// line; csv-raw keeps the exact text and json escapes as JSON does. Nor does text
// that spoofs: formulas in csv, markup in markdown, bidi and zero-width characters.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <map>

#include "kit/gguf_writer.hpp"
#include "kit/llama_conversion.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufValue;
using kit::GgufWriter;

namespace {

const std::string kTitle = "\x1b]0;pwned\x07\x1b[31mRED\x1b[0m";  // sets the title and colours
const std::string kClearKey = "x.\x1b[2Jkey";                       // clears the screen
const std::string kCsiC1 = "\xc2\x9b" "31m";                        // U+009B: CSI as a C1 control

// Issue 35: text that spoofs. A cell a spreadsheet would run as a formula, markup and a link a
// markdown viewer would render, and the characters that reorder or hide text (Trojan Source: a
// name that reads "x.gguf" but is not) in metadata values and a file name.
const std::string kFormula = "=cmd|' /C calc'!A0";
const std::string kMarkup = "<img src=x onerror=alert(1)>", kLink = "[x](javascript:alert(1))";
const std::string kReversed = "txt\u202Egnp.exe";                                      // RIGHT-TO-LEFT OVERRIDE
const std::string kHidden = "Q4\u200B_K \u2066iso\u2069 \u200Fr \u061Ca \uFEFFb \u2028c";  // zero-width, isolates, marks, BOM, separator
const std::string kSpoofedFile = "spoof\u202Eftg.gguf";

class TerminalOutput : public ::testing::Test {
protected:
    void SetUp() override {
        GgufWriter w;
        w.add_kv("general.name", GgufValue::str(kTitle));
        w.add_kv(kClearKey, GgufValue::str("v"));
        w.add_kv(kClearKey, GgufValue::str("again"));  // a warning that quotes the key
        w.add_kv("y.c1", GgufValue::str(kCsiC1));
        w.add_kv("z.clipboard", GgufValue::str("\x1b]52;c;cHduZWQ=\x07"));
        w.add_tensor("t.\x1b[1mname", {8}, 0);
        w.write(tmp_ / "crafted.gguf");
        GgufWriter plain;
        plain.add_tensor("token_embd.weight", {8}, 0);
        plain.write(tmp_ / "evil\x1b[2J.gguf");
        GgufWriter broken;
        broken.add_raw_kv("k\x1b[5m", 13, {0, 0, 0, 0});  // an error message quotes this key
        broken.write(tmp_ / "broken\x07.gguf");
        write_spoofing_file();
        std::ofstream(tmp_ / "spoof.sql") << "SELECT key AS k, value AS v FROM metadata WHERE key LIKE 'spoof.%' UNION ALL "
                                             "SELECT 'location', location FROM models WHERE name LIKE 'spoof%' ORDER BY k";
        std::ofstream(tmp_ / "all.sql") << "SELECT key AS k, value AS v FROM metadata UNION ALL SELECT name, type_name FROM tensors"
                                           " UNION ALL SELECT location, message FROM errors UNION ALL SELECT location,"
                                           " message FROM warnings UNION ALL SELECT location, name FROM models";
        crawl_ = test::run_modelcat("crawl --db " + db() + " " + tmp_.path().string());
    }
    // Metadata values that spoof, in a file whose name does.
    void write_spoofing_file() {
        GgufWriter w;
        w.add_kv("spoof.formula", GgufValue::str(kFormula));
        w.add_kv("spoof.plus", GgufValue::str("+1+1"));
        w.add_kv("spoof.minus", GgufValue::str("-2+3"));
        w.add_kv("spoof.at", GgufValue::str("@SUM(1)"));
        w.add_kv("spoof.tab", GgufValue::str("\tx"));
        w.add_kv("spoof.cr", GgufValue::str("\rx"));
        w.add_kv("spoof.escape", GgufValue::str("\x1b[31mred"));
        w.add_kv("spoof.negative", GgufValue::i32(-1));
        w.add_kv("spoof.markup", GgufValue::str(kMarkup));
        w.add_kv("spoof.link", GgufValue::str(kLink));
        w.add_kv("spoof.reversed", GgufValue::str(kReversed));
        w.add_kv("spoof.hidden", GgufValue::str(kHidden));
        w.add_tensor("token_embd.weight", {8}, 0);
        w.write(tmp_ / kSpoofedFile);
    }
    std::string db() const { return (tmp_ / "c.db").string(); }
    test::CommandResult query(const std::string& fmt, const std::string& sql = "all.sql") {
        return test::run_modelcat("query " + (tmp_ / sql).string() + " --db " + db() + " -f " + fmt);
    }
    test::TempDir tmp_;
    test::CommandResult crawl_;
};

TEST_F(TerminalOutput, CrawlLinesOnStderrAreEscaped) {
    EXPECT_EQ(crawl_.exit_code, 1) << crawl_.err;
    EXPECT_EQ(test::first_control_character(crawl_.err), "");
    EXPECT_NE(crawl_.err.find("evil\\x1b[2J.gguf"), std::string::npos) << crawl_.err;
    EXPECT_NE(crawl_.err.find("broken\\x07.gguf"), std::string::npos) << crawl_.err;
    EXPECT_NE(crawl_.err.find("'k\\x1b[5m'"), std::string::npos) << crawl_.err;
}

TEST_F(TerminalOutput, TableMarkdownAndCsvEscapeCsvRawKeepsJsonEscapes) {
    for (const std::string fmt : {"table", "markdown"}) {
        test::CommandResult r = query(fmt);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(test::first_control_character(r.out), "") << fmt;
        EXPECT_NE(r.out.find("\\x1b]0;pwned\\x07\\x1b[31mRED\\x1b[0m"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("x.\\x1b[2Jkey"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("\\u009b31m"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("t.\\x1b[1mname"), std::string::npos) << r.out;
        const std::string quote = fmt == "markdown" ? "&#39;" : "'";  // markdown escapes its cells as HTML
        EXPECT_NE(r.out.find("duplicate key " + quote + "x.\\x1b[2Jkey" + quote), std::string::npos) << r.out;
    }
    test::CommandResult csv = query("csv");
    EXPECT_EQ(test::first_control_character(csv.out), "");
    EXPECT_NE(csv.out.find("\\x1b]0;pwned\\x07\\x1b[31mRED\\x1b[0m"), std::string::npos) << csv.out;
    test::CommandResult raw = query("csv-raw");
    EXPECT_NE(raw.out.find(kTitle), std::string::npos) << "csv-raw keeps the exact text";
    EXPECT_NE(raw.out.find(kClearKey), std::string::npos);
    test::CommandResult json = query("json");
    EXPECT_EQ(test::first_control_character(json.out), "");
    EXPECT_NE(json.out.find("\\u001b]0;pwned\\u0007"), std::string::npos) << json.out;
    EXPECT_NE(json.out.find("\\u009b31m"), std::string::npos) << json.out;
}

// A crafted GGUF's tensor names reach audit's FAIL lines (stdout) escaped, as the crawl's do.
TEST_F(TerminalOutput, AuditFailLinesAreEscaped) {
    modelcat::kit::write_llama_checkpoint(tmp_ / "ckpt", {});
    test::CommandResult r = test::run_modelcat("audit --db " + (tmp_ / "a.db").string() + " " + (tmp_ / "crafted.gguf").string() +
                                               " " + (tmp_ / "ckpt").string());
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_EQ(test::first_control_character(r.out), "") << r.out;
    EXPECT_EQ(test::first_control_character(r.err), "") << r.err;
    EXPECT_NE(r.out.find("FAIL t.\\x1b[1mname: unmatched_gguf"), std::string::npos) << r.out;
}

TEST_F(TerminalOutput, ShowEscapesKeysNamesValuesAndErrors) {
    test::CommandResult r = test::run_modelcat("show " + (tmp_ / "crafted.gguf").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::first_control_character(r.out), "");
    EXPECT_NE(r.out.find("x.\\x1b[2Jkey"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("t.\\x1b[1mname"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\\u009b31m"), std::string::npos) << r.out;
    test::CommandResult named = test::run_modelcat("show " + (tmp_ / "evil*.gguf").string());
    EXPECT_EQ(test::first_control_character(named.out), "");
    EXPECT_NE(named.out.find("evil\\x1b[2J.gguf"), std::string::npos) << named.out;
    test::CommandResult bad = test::run_modelcat("show " + (tmp_ / "broken*.gguf").string());
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_EQ(test::first_control_character(bad.err), "");
    EXPECT_NE(bad.err.find("broken\\x07.gguf"), std::string::npos) << bad.err;
}

// OWASP's rule: a text cell starting with = + - @ TAB or CR gets a leading ', controls are escaped
// as on a terminal; numbers are untouched. csv-raw keeps the exact text.
TEST_F(TerminalOutput, CsvCellsAreNeverFormulasAndCsvRawKeepsTheText) {
    test::CommandResult csv = query("csv", "spoof.sql");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    for (const std::string line : {"spoof.formula,'=cmd|' /C calc'!A0\n", "spoof.plus,'+1+1\n", "spoof.minus,'-2+3\n",
                                   "spoof.at,'@SUM(1)\n", "spoof.tab,'\tx\n", "spoof.cr,'\\x0dx\n", "spoof.escape,\\x1b[31mred\n",
                                   "spoof.negative,-1\n", "spoof.reversed,txt\\u202egnp.exe\n"})
        EXPECT_NE(csv.out.find(line), std::string::npos) << line << " in\n" << csv.out;
    EXPECT_EQ(test::first_control_character(csv.out), "");
    test::CommandResult raw = query("csv-raw", "spoof.sql");
    ASSERT_EQ(raw.exit_code, 0) << raw.err;
    for (const std::string& line : {"spoof.formula," + kFormula + "\n", std::string("spoof.cr,\"\rx\"\n"),
                                   std::string("spoof.escape,\x1b[31mred\n"), "spoof.reversed," + kReversed + "\n"})
        EXPECT_NE(raw.out.find(line), std::string::npos) << line << " in\n" << raw.out;
}

TEST_F(TerminalOutput, MarkdownCellsAreEscapedAsHtml) {
    test::CommandResult md = query("markdown", "spoof.sql");
    ASSERT_EQ(md.exit_code, 0) << md.err;
    EXPECT_EQ(md.out.find("<img"), std::string::npos) << md.out;
    EXPECT_EQ(md.out.find("](javascript:"), std::string::npos) << md.out;
    EXPECT_NE(md.out.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << md.out;
    EXPECT_NE(md.out.find("[x&#93;(javascript:alert(1))"), std::string::npos) << md.out;  // no link: text
}

TEST_F(TerminalOutput, BidiAndZeroWidthCharactersAreShownEscaped) {
    EXPECT_EQ(test::first_control_character(crawl_.err), "") << crawl_.err;
    EXPECT_NE(crawl_.err.find("spoof\\u202eftg.gguf"), std::string::npos) << crawl_.err;  // the progress line
    for (const char* fmt : {"table", "plain", "markdown"}) {
        test::CommandResult r = query(fmt, "spoof.sql");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(test::first_control_character(r.out), "") << fmt;
        EXPECT_NE(r.out.find("txt\\u202egnp.exe"), std::string::npos) << fmt << "\n" << r.out;
        EXPECT_NE(r.out.find("Q4\\u200b_K \\u2066iso\\u2069 \\u200fr \\u061ca \\ufeffb \\u2028c"), std::string::npos) << r.out;
    }
    test::CommandResult show = test::run_modelcat("show '" + (tmp_ / kSpoofedFile).string() + "'");
    ASSERT_EQ(show.exit_code, 0) << show.err;
    EXPECT_EQ(test::first_control_character(show.out), "");
    EXPECT_NE(show.out.find("spoof\\u202eftg.gguf"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("txt\\u202egnp.exe"), std::string::npos) << show.out;
}

// JSON is for programs: the values read back exact, and the characters travel as JSON escapes.
TEST_F(TerminalOutput, JsonKeepsTheValuesExactWithTheCharactersAsEscapes) {
    test::CommandResult json = query("json", "spoof.sql");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_EQ(test::first_control_character(json.out), "");
    EXPECT_NE(json.out.find("txt\\u202egnp.exe"), std::string::npos) << json.out;
    simdjson::dom::parser parser;
    std::map<std::string, std::string> values;
    for (simdjson::dom::element row : parser.parse(json.out).get_array())
        if (row["v"].is_string()) values[std::string(row["k"].get_string().value())] = std::string(row["v"].get_string().value());
    EXPECT_EQ(values["spoof.reversed"], kReversed);
    EXPECT_EQ(values["spoof.hidden"], kHidden);
    EXPECT_EQ(values["spoof.formula"], kFormula);
}

}  // namespace
