// `modelcat report --html` measured and worked in headless Chromium: a copy of the page with
// tests/html_probe.js appended (after the page's own script) is loaded with --dump-dom, and the
// probe's findings (label boxes as laid out, computed colours and outlines, what each filter leaves
// shown, the sort order before and after clicks, the table's cells) are checked against the catalogue;
// without a browser, the group section of a one-policy selection and the header's crawl line.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "catalog/writer.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/llama31.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace html_probe {  // named: the unity build shares one file's anonymous namespace with the next

const std::string kPrefix = "Meta-Llama-3.1-8B-Instruct-";

bool have_chromium() { return test::run_command("command -v chromium").exit_code == 0; }

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The text of the last <pre id="probe"> in a serialized DOM, its entities decoded (chromium escapes & < > only).
std::string probe_text(const std::string& dom) {
    const std::string open = "<pre id=\"probe\">";
    size_t from = dom.rfind(open), to = dom.find("</pre>", from);  // the last: the probe's comment names it too
    if (from == std::string::npos || to == std::string::npos) return "";
    std::string raw = dom.substr(from + open.size(), to - from - open.size()), out;
    for (size_t i = 0; i < raw.size(); ++i) {
        bool entity = raw[i] == '&';
        if (entity && raw.compare(i, 4, "&lt;") == 0) out += '<', i += 3;
        else if (entity && raw.compare(i, 4, "&gt;") == 0) out += '>', i += 3;
        else if (entity && raw.compare(i, 5, "&amp;") == 0) out += '&', i += 4;
        else if (entity && raw.compare(i, 6, "&nbsp;") == 0) out += "\u00a0", i += 5;
        else out += raw[i];
    }
    return out;
}

// The report of `db` (extra args: a selection) with the probe appended, loaded in chromium: the probe's JSON.
std::string probe_report(const fs::path& dir, const fs::path& db, const std::string& selection, const std::string& filters_js) {
    const fs::path html = dir / "probe-report.html", probed = dir / "probed.html";
    auto r = test::run_modelcat("report --html '" + html.string() + "' --db '" + db.string() + "' " + selection);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string page = read_text(html);
    page.insert(page.rfind("</body>"), "<script>window.modelcatProbeFilters=" + filters_js + ";</script><script>" +
                                           read_text(fs::path(MODELCAT_SOURCE_DIR) / "tests/html_probe.js") + "</script>\n");
    std::ofstream(probed, std::ios::binary) << page;
    test::CommandResult dump = test::run_command(
        "timeout 120 chromium --headless --no-sandbox --disable-gpu --host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir='" +
        (dir / "profile").string() + "' --enable-logging=stderr --v=0 --dump-dom 'file://" + probed.string() + "'");
    EXPECT_EQ(dump.exit_code, 0) << dump.err.substr(0, 2000);
    EXPECT_EQ(dump.err.find(":CONSOLE"), std::string::npos) << dump.err;  // no script error, the probe's included
    std::ofstream(dir / "probed-dom.html", std::ios::binary) << dump.out;
    size_t js_errors = dump.out.find("data-js-errors=\"");
    EXPECT_EQ(js_errors, std::string::npos) << dump.out.substr(js_errors == std::string::npos ? 0 : js_errors, 300);
    return probe_text(dump.out);
}

std::set<std::string> strings(simdjson::dom::element array) {
    std::set<std::string> out;
    for (auto v : array.get_array()) out.insert(std::string(v.get_string().value()));
    return out;
}

std::vector<std::string> string_list(simdjson::dom::element array) {
    std::vector<std::string> out;
    for (auto v : array.get_array()) out.emplace_back(v.get_string().value());
    return out;
}

// Label pairs whose boxes, as the browser laid them out, intersect (touching edges do not count).
size_t overlapping_label_pairs(simdjson::dom::element labels) {
    struct Box { double x, y, w, h; };
    std::vector<Box> boxes;
    for (auto l : labels.get_array())
        boxes.push_back({l["x"].get_double(), l["y"].get_double(), l["w"].get_double(), l["h"].get_double()});
    size_t pairs = 0;
    for (size_t i = 0; i < boxes.size(); ++i)
        for (size_t j = i + 1; j < boxes.size(); ++j) {
            const Box &a = boxes[i], &b = boxes[j];
            pairs += a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        }
    return pairs;
}

// name -> a column of sql's rows (first column the name).
std::map<std::string, std::string> by_name(const fs::path& db, const std::string& sql) {
    SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement st(d, sql);
    std::map<std::string, std::string> out;
    while (st.executeStep()) out[st.getColumn(0).getString()] = st.getColumn(1).getString();
    return out;
}

std::set<std::string> names(const fs::path& db, const std::string& sql) {
    std::set<std::string> out;
    for (const auto& [name, _] : by_name(db, sql)) out.insert(name);
    return out;
}

// Two repos holding a file of the same name (the Q4_K_M quant), a Q4_K_L beside one of them, the rest
// of the lineup in a third folder and a small model of another architecture.
class HtmlReportInBrowser : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        const fs::path root = dir_->path() / "mirror";
        test::copy_llama31_lineup(root / "lineup");
        for (const char* repo : {"bartowski/Llama-3.1-8B-GGUF", "unsloth/Llama-3.1-8B-GGUF"}) {
            fs::create_directories(root / repo);
            kit::llama31_quant("Q4_K_M").write(root / repo / (kPrefix + "Q4_K_M.gguf"));
        }
        kit::GgufWriter qwen;
        qwen.add_kv("general.architecture", kit::GgufValue::str("qwen2"));
        qwen.add_kv("general.file_type", kit::GgufValue::u32(1));
        qwen.add_tensor("token_embd.weight", {896, 1024}, 1);
        qwen.add_tensor("blk.0.attn_q.weight", {896, 896}, 1);
        qwen.add_tensor("blk.0.attn_norm.weight", {896}, 0);
        fs::create_directories(root / "qwen");
        qwen.write(root / "qwen" / "qwen2-tiny-F16.gguf");
        db_ = dir_->path() / "catalog.db";
        auto crawl = test::run_modelcat("crawl --quiet --db '" + db_.string() + "' '" + root.string() + "'");
        EXPECT_EQ(crawl.exit_code, 0) << crawl.err;
    }
    static void TearDownTestSuite() { delete dir_; }
    // The whole catalogue's page probed once for the tests that read it (each filter is tried alone,
    // then cleared, before the sort clicks and the table's reading).
    static const std::string& whole_page_probe() {
        static const std::string json = probe_report(
            dir_->path(), db_, "",
            R"([["filter","q6"],["filter-architecture","qwen2"],["filter-file-type","MOSTLY_Q4_K_M"],)"
            R"(["filter-type","Q8_0"],["filter-min-gib","4"],["filter-max-gib","4.6"]])");
        return json;
    }
    static inline test::TempDir* dir_;
    static inline fs::path db_;
};

TEST_F(HtmlReportInBrowser, ScatterLabelsDoNotOverlapAndEveryMarkIsInTheLegend) {
    if (!have_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs Debian's chromium)";
    simdjson::dom::parser parser;
    const std::string& json = whole_page_probe();
    simdjson::dom::element probe = parser.parse(json);
    size_t scatters = 0;
    for (auto s : probe["scatters"].get_array()) {
        ++scatters;
        EXPECT_EQ(overlapping_label_pairs(s["labels"]), 0u) << s["architecture"].get_string().value();
        EXPECT_GT(s["labels"].get_array().size(), 0u);
    }
    EXPECT_EQ(scatters, 2u);  // llama and qwen2
    // the colours and outlines the maps and the scatter use, each shown by a legend swatch
    std::set<std::string> map_backgrounds = strings(probe["map"]["backgrounds"]), map_outlines = strings(probe["map"]["outlines"]);
    std::set<std::string> legend_backgrounds = strings(probe["legend"]["backgrounds"]), legend_outlines = strings(probe["legend"]["outlines"]);
    for (const auto& b : map_backgrounds) EXPECT_TRUE(legend_backgrounds.contains(b)) << "not in the legend: background " << b;
    for (const auto& o : map_outlines) EXPECT_TRUE(legend_outlines.contains(o)) << "not in the legend: outline " << o;
    for (const auto& p : strings(probe["points"])) EXPECT_TRUE(strings(probe["legend"]["points"]).contains(p)) << p;
    EXPECT_TRUE(map_outlines.contains("solid 2px rgb(0, 0, 0)"));     // not the majority type
    EXPECT_TRUE(map_outlines.contains("solid 2px rgb(238, 0, 0)"));  // differs within the Q4_K_M group
    EXPECT_GE(map_backgrounds.size(), 9u);  // the lineup's eight types and F32, F16
    EXPECT_EQ(string_list(probe["legendMarks"]), (std::vector<std::string>{"dev", "none", "differs", "point"}));
}

TEST_F(HtmlReportInBrowser, LineupScatterLabelsAllShownApart) {
    if (!have_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs Debian's chromium)";
    simdjson::dom::parser parser;
    std::string json = probe_report(dir_->path(), db_, "--pattern '%Meta-Llama%'", "[]");
    simdjson::dom::element probe = parser.parse(json);
    auto scatters = probe["scatters"].get_array();
    ASSERT_EQ(scatters.size(), 1u);
    simdjson::dom::element llama = scatters.at(0);
    EXPECT_EQ(llama["points"].get_int64().value(), 10);  // the lineup and the two repos' copies
    EXPECT_EQ(llama["labels"].get_array().size(), 8u);  // every quant labelled once: the repos' copies share the Q4_K_M point
    EXPECT_EQ(overlapping_label_pairs(llama["labels"]), 0u);
    std::multiset<std::string> texts;
    for (auto l : llama["labels"].get_array()) texts.insert(std::string(l["text"].get_string().value()));
    EXPECT_EQ(texts.count("Q4_K_M"), 1u);
    EXPECT_EQ(texts.size(), 8u);
    EXPECT_EQ(texts.count("IQ2_M"), 1u);
}

TEST_F(HtmlReportInBrowser, FiltersByNameArchitectureTypeAndSize) {
    if (!have_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs Debian's chromium)";
    simdjson::dom::parser parser;
    const std::string& json = whole_page_probe();
    simdjson::dom::element f = parser.parse(json)["filters"];
    auto rows = [&](const char* key) { return strings(f[key]["rows"]); };
    EXPECT_EQ(rows("filter=q6"), (std::set<std::string>{kPrefix + "Q6_K"}));
    EXPECT_EQ(rows("filter-architecture=qwen2"), names(db_, "SELECT name, 1 FROM models WHERE architecture = 'qwen2'"));
    EXPECT_EQ(rows("filter-architecture=qwen2").size(), 1u);
    EXPECT_EQ(rows("filter-file-type=MOSTLY_Q4_K_M"), (std::set<std::string>{kPrefix + "Q4_K_M", kPrefix + "Q4_K_L"}));
    EXPECT_EQ(f["filter-file-type=MOSTLY_Q4_K_M"]["maps"].get_int64().value(), 4);  // three Q4_K_M (two repos and the lineup), a Q4_K_L
    EXPECT_EQ(f["filter-file-type=MOSTLY_Q4_K_M"]["points"].get_int64().value(), 4);
    EXPECT_EQ(rows("filter-type=Q8_0"), names(db_, "SELECT m.name, 1 FROM census c JOIN models m USING (model_id) WHERE c.type_name = 'Q8_0'"));
    EXPECT_EQ(rows("filter-type=Q8_0").size(), 2u);  // Q8_0 and Q4_K_L (its token_embd and output)
    EXPECT_EQ(rows("filter-min-gib=4"), names(db_, "SELECT name, 1 FROM models WHERE file_bytes >= 4 * 1073741824"));
    EXPECT_EQ(rows("filter-max-gib=4.6"), names(db_, "SELECT name, 1 FROM models WHERE file_bytes <= 4.6 * 1073741824"));
    const int64_t models = std::stoll(test::sql_value(db_, "SELECT count(*) FROM models"));
    EXPECT_EQ(std::string(f["none"]["status"].get_string().value()),
              std::to_string(models) + " of " + std::to_string(models) + " models shown");
    EXPECT_EQ(std::string(f["filter=q6"]["status"].get_string().value()), "1 of " + std::to_string(models) + " models shown");
    EXPECT_EQ(f["none"]["maps"].get_int64().value(), models);
}

TEST_F(HtmlReportInBrowser, SortOrderIsShownAndFollowsTheClickedHeading) {
    if (!have_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs Debian's chromium)";
    simdjson::dom::parser parser;
    const std::string& json = whole_page_probe();
    simdjson::dom::element sort = parser.parse(json)["sort"];
    EXPECT_EQ(std::string(sort["initial"]["header"].get_string().value()), "architecture");
    EXPECT_EQ(std::string(sort["initial"]["direction"].get_string().value()), "ascending");
    EXPECT_EQ(std::string(sort["initial"]["text"].get_string().value()).rfind("Sorted by architecture, then GiB, then name.", 0), 0u);
    std::map<std::string, std::string> bytes = by_name(db_, "SELECT name || '@' || location, file_bytes FROM models");
    auto sizes = [&](simdjson::dom::element state) {
        std::vector<int64_t> out;
        std::map<std::string, int64_t> size_of;
        for (const auto& [key, b] : bytes) size_of[key.substr(0, key.find('@'))] = std::stoll(b);
        for (const auto& n : string_list(state["rows"])) out.push_back(size_of.at(n));
        return out;
    };
    std::vector<int64_t> up = sizes(sort["once"]), down = sizes(sort["twice"]);
    EXPECT_EQ(up.size(), bytes.size());
    EXPECT_TRUE(std::is_sorted(up.begin(), up.end()));
    EXPECT_TRUE(std::is_sorted(down.rbegin(), down.rend()));
    EXPECT_EQ(std::string(sort["once"]["text"].get_string().value()),
              "Sorted by GiB, ascending. Click a column heading to sort by it, again to reverse.");
    EXPECT_EQ(std::string(sort["twice"]["direction"].get_string().value()), "descending");
}

TEST_F(HtmlReportInBrowser, TableShowsTypeNamesLocationsAndTheLastCrawl) {
    if (!have_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs Debian's chromium)";
    simdjson::dom::parser parser;
    const std::string& json = whole_page_probe();
    simdjson::dom::element probe = parser.parse(json);
    // the census from the catalogue's census rows, named there, in quant_summary's order
    std::map<std::string, std::string> want_census = by_name(
        db_, "SELECT m.location, group_concat(c.type_name || ':' || c.tensors, ' ') FROM models m JOIN "
             "(SELECT * FROM census ORDER BY params DESC, type_id, type_name) c USING (model_id) GROUP BY m.model_id");
    std::map<std::string, std::string> location_of_label;  // shown label -> full location
    size_t rows = 0;
    for (auto row : probe["table"].get_array()) {
        ++rows;
        std::string location(row["location title"].get_string().value()), shown(row["location"].get_string().value());
        EXPECT_EQ(std::string(row["census"].get_string().value()), want_census.at(location));
        EXPECT_NE(location.find("/" + shown + "/"), std::string::npos) << shown << " is not a folder of " << location;
        auto [it, fresh] = location_of_label.emplace(shown, location.substr(0, location.rfind('/')));
        EXPECT_EQ(it->second, location.substr(0, location.rfind('/'))) << "two folders shown alike: " << shown;
    }
    EXPECT_EQ(rows, 11u);
    EXPECT_TRUE(location_of_label.contains("bartowski/Llama-3.1-8B-GGUF"));
    EXPECT_TRUE(location_of_label.contains("unsloth/Llama-3.1-8B-GGUF"));
    EXPECT_TRUE(location_of_label.contains("lineup"));
    for (auto row : probe["table"].get_array())
        if (std::string(row["name"].get_string().value()) == kPrefix + "Q4_K_M") {
            EXPECT_EQ(std::string(row["census"].get_string().value()), "Q4_K:193 Q6_K:33 F32:66");
        }
    const std::string finished = test::sql_value(db_, "SELECT finished_at FROM crawls ORDER BY crawl_id DESC LIMIT 1");
    EXPECT_EQ(std::string(probe["source"]["datetime"].get_string().value()), finished);
    std::string source(probe["source"]["text"].get_string().value());
    EXPECT_NE(source.find("Catalogue " + db_.string()), std::string::npos) << source;
    EXPECT_NE(source.find("last crawl #1 finished " + finished.substr(0, 10) + " " + finished.substr(11, 8) + " UTC"),
              std::string::npos) << source;
    EXPECT_EQ(string_list(probe["groups"]), (std::vector<std::string>{"llama · MOSTLY_Q4_K_M: 4 models, 2 policies"}));
}

// No browser: the group section of a selection that holds one policy of a group.
TEST(HtmlReportCommand, AGroupNeedsTwoPoliciesWithinTheSelection) {
    test::TempDir dir;
    for (const char* repo : {"a", "b"}) {
        fs::create_directories(dir / repo);
        kit::llama31_quant("Q4_K_M").write(dir / repo / (kPrefix + "Q4_K_M.gguf"));
    }
    kit::llama31_quant("Q4_K_L").write(dir / "a" / (kPrefix + "Q4_K_L.gguf"));
    const std::string db = (dir / "c.db").string(), html = (dir / "r.html").string();
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db '" + db + "' '" + dir.path().string() + "'").exit_code, 0);
    ASSERT_EQ(test::run_modelcat("report --html '" + html + "' --db '" + db + "' --pattern '%Q4_K_M'").exit_code, 0);
    std::string page = read_text(html);
    EXPECT_EQ(page.find("class=\"policy-group\""), std::string::npos);  // was "MOSTLY_Q4_K_M: 2 models, 1 policies"
    EXPECT_NE(page.find("No two models of this selection declare the same file_type with different policies."), std::string::npos);
    ASSERT_EQ(test::run_modelcat("report --html '" + html + "' --db '" + db + "'").exit_code, 0);
    page = read_text(html);
    EXPECT_NE(page.find("MOSTLY_Q4_K_M: 3 models, 2 policies</h3>"), std::string::npos);
    EXPECT_EQ(page.find("No two models of this selection"), std::string::npos);
}

// No browser: the header's crawl line for a catalogue never crawled and for a crawl still running.
TEST(HtmlReportCommand, TheHeaderNamesTheCatalogueAndItsLastCrawl) {
    test::TempDir dir;
    const std::string db = (dir / "c.db").string(), html = (dir / "r.html").string();
    { catalog::Writer cat(db); }
    ASSERT_EQ(test::run_modelcat("report --html '" + html + "' --db '" + db + "'").exit_code, 0);
    EXPECT_NE(read_text(html).find("<p class=\"source\">Catalogue <code>" + db + "</code> · never crawled</p>"), std::string::npos);
    kit::llama31_quant("Q8_0").write(dir / "q.gguf");
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db '" + db + "' '" + (dir / "q.gguf").string() + "'").exit_code, 0);
    const std::string started = test::sql_value(db, "SELECT started_at FROM crawls WHERE crawl_id = 1");
    {
        SQLite::Database w(db, SQLite::OPEN_READWRITE);  // as a crawl that is still running (or was killed) leaves it
        w.exec("UPDATE crawls SET finished_at = NULL WHERE crawl_id = 1");
    }
    ASSERT_EQ(test::run_modelcat("report --html '" + html + "' --db '" + db + "'").exit_code, 0);
    EXPECT_NE(read_text(html).find("last crawl #1 started <time datetime=\"" + started + "\">" + started.substr(0, 10) + " " +
                                   started.substr(11, 8) + " UTC</time>, not finished</p>"),
              std::string::npos)
        << read_text(html).substr(0, 1500);
}

}  // namespace html_probe
