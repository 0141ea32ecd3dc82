// No control character from a file reaches a terminal: keys, values, tensor
// names, file names and error messages holding escape sequences are printed
// escaped by the table and markdown formats, `show` and every stderr line;
// csv keeps the exact text and json escapes as JSON does.
#include <gtest/gtest.h>

#include <fstream>

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
        std::ofstream(tmp_ / "all.sql") << "SELECT key AS k, value AS v FROM metadata UNION ALL SELECT name, type_name FROM tensors"
                                           " UNION ALL SELECT location, message FROM errors UNION ALL SELECT location,"
                                           " message FROM warnings UNION ALL SELECT location, name FROM models";
        crawl_ = test::run_modelcat("crawl --db " + db() + " " + tmp_.path().string());
    }
    std::string db() const { return (tmp_ / "c.db").string(); }
    test::CommandResult query(const std::string& fmt) {
        return test::run_modelcat("query " + (tmp_ / "all.sql").string() + " --db " + db() + " -f " + fmt);
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

TEST_F(TerminalOutput, TableAndMarkdownEscapeCsvKeepsJsonEscapes) {
    for (const char* fmt : {"table", "markdown"}) {
        test::CommandResult r = query(fmt);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(test::first_control_character(r.out), "") << fmt;
        EXPECT_NE(r.out.find("\\x1b]0;pwned\\x07\\x1b[31mRED\\x1b[0m"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("x.\\x1b[2Jkey"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("\\u009b31m"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("t.\\x1b[1mname"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("duplicate key 'x.\\x1b[2Jkey'"), std::string::npos) << r.out;
    }
    test::CommandResult csv = query("csv");
    EXPECT_NE(csv.out.find(kTitle), std::string::npos) << "csv keeps the exact text";
    EXPECT_NE(csv.out.find(kClearKey), std::string::npos);
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

}  // namespace
