// `modelcat report --html` on the Llama 3.1 8B lineup, a real third-party GGUF
// and a file whose name is markup, checked in headless Chromium (two launches:
// the DOM after the script ran, and a screenshot kept in the build folder) and
// by Python's html.parser (tests/html_check.py) for well-formedness.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "catalog/writer.hpp"
#include "crawl/crawler.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/llama31.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

const std::string kPrefix = "Meta-Llama-3.1-8B-Instruct-";
const std::string kMarkupName = "<img src=x onerror=alert(1)>&amp;";  // a file stem that is markup
const std::string kMarkupLayered = "blk.0.<b>bold</b>.weight", kMarkupFlat = "\"><script>x()</script>";
const std::string kAdapter = "Llama-3.1-8B-lora";

// A LoRA adapter (general.type = adapter: listed, not mapped) and a model whose tensor names are markup.
void write_odd_models(const fs::path& dir) {
    kit::GgufWriter adapter;
    adapter.add_kv("general.architecture", kit::GgufValue::str("llama"));
    adapter.add_kv("general.type", kit::GgufValue::str("adapter"));
    adapter.add_kv("adapter.type", kit::GgufValue::str("lora"));
    adapter.add_tensor("blk.0.attn_q.weight.lora_a", {4096, 16}, 0);
    adapter.add_tensor("blk.0.attn_q.weight.lora_b", {16, 4096}, 0);
    adapter.write(dir / (kAdapter + ".gguf"));
    kit::GgufWriter odd;
    odd.add_kv("general.architecture", kit::GgufValue::str("llama"));
    odd.add_tensor(kMarkupLayered, {32}, 0);
    odd.add_tensor(kMarkupFlat, {32}, 0);
    odd.write(dir / "markup-tensors.gguf");
}

// One element of a page as tests/html_check.py --elements reports it.
struct Element {
    std::string tag, text;
    std::map<std::string, std::string> attrs;
    int64_t parent = -1;
    bool has_class(const std::string& c) const {
        auto it = attrs.find("class");
        if (it == attrs.end()) return false;
        std::istringstream words(it->second);
        for (std::string w; words >> w;)
            if (w == c) return true;
        return false;
    }
    std::string attr(const std::string& k) const {
        auto it = attrs.find(k);
        return it == attrs.end() ? "" : it->second;
    }
};

struct Page {
    std::vector<Element> elements;
    std::vector<std::string> problems;

    // Index of the nearest ancestor (or self) with class `c`, or -1.
    int64_t within(int64_t i, const std::string& c) const {
        for (; i >= 0; i = elements[i].parent)
            if (elements[i].has_class(c)) return i;
        return -1;
    }
    std::vector<int64_t> with_class(const std::string& c) const {
        std::vector<int64_t> out;
        for (size_t i = 0; i < elements.size(); ++i)
            if (elements[i].has_class(c)) out.push_back(static_cast<int64_t>(i));
        return out;
    }
    // Cells (elements with data-tensor) under element `root`, by tensor name.
    std::map<std::string, const Element*> cells(int64_t root) const {
        std::map<std::string, const Element*> out;
        for (size_t i = 0; i < elements.size(); ++i) {
            if (!elements[i].attrs.contains("data-tensor")) continue;
            int64_t a = static_cast<int64_t>(i);
            while (a >= 0 && a != root) a = elements[a].parent;
            if (a == root) out[elements[i].attr("data-tensor")] = &elements[i];
        }
        return out;
    }
};

Page parse_page(const fs::path& html) {
    test::CommandResult r = test::run_command("python3 " + (fs::path(MODELCAT_SOURCE_DIR) / "tests/html_check.py").string() +
                                              " --elements '" + html.string() + "'");
    Page page;
    simdjson::dom::parser parser;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("problem: ")) {
            page.problems.push_back(line);
            continue;
        }
        simdjson::dom::element e = parser.parse(line);
        Element el{std::string(e["tag"].get_string().value()), std::string(e["text"].get_string().value()), {},
                   e["p"].get_int64().value()};
        for (auto [k, v] : e["a"].get_object()) el.attrs[std::string(k)] = std::string(v.get_string().value());
        page.elements.push_back(std::move(el));
    }
    EXPECT_EQ(r.exit_code == 0, page.problems.empty()) << r.err;
    return page;
}

// The background colour the page's stylesheet gives class `cls` (".t14{background:#rrggbb}").
std::string css_colour(const Page& page, const std::string& cls) {
    for (const auto& e : page.elements) {
        if (e.tag != "style") continue;
        size_t p = e.text.find("." + cls + "{background:");
        if (p != std::string::npos) return e.text.substr(p + cls.size() + 13, 7);
    }
    return "";
}

std::string palette_class(const Element& cell) {
    std::istringstream words(cell.attr("class"));
    for (std::string w; words >> w;)
        if (w.size() > 1 && w[0] == 't' && std::isdigit(static_cast<unsigned char>(w[1]))) return w;
    return "";
}

// The checks of the drawn DOM, one concern each (the browser runs once for all of them).
void check_no_script_errors(const Page& dom, const test::CommandResult& browser) {
    EXPECT_TRUE(dom.problems.empty()) << dom.problems.front();
    EXPECT_EQ(browser.err.find(":CONSOLE"), std::string::npos) << browser.err;
    for (const auto& e : dom.elements)
        if (e.tag == "body") {
            EXPECT_EQ(e.attr("data-js-errors"), "");
        }
}

// want: model name -> (tensor -> type), from the catalogue.
void check_one_map_per_model(const Page& dom, std::map<std::string, std::map<std::string, std::string>> want) {
    ASSERT_EQ(want.erase(kAdapter), 1u);  // listed, not mapped
    // eight quants, the copy under a markup name, the tiny real llama, the markup tensors
    ASSERT_EQ(want.size(), 11u);
    std::set<std::string> mapped;
    for (int64_t m : dom.with_class("policy-map")) {
        if (dom.within(m, "policy-group") >= 0) continue;
        std::string name = dom.elements[m].attr("data-model");
        EXPECT_TRUE(mapped.insert(name).second) << "two maps of " << name;
        auto cells = dom.cells(m);
        ASSERT_EQ(cells.size(), want[name].size()) << name;
        for (const auto& [tensor, cell] : cells) EXPECT_EQ(cell->attr("data-type"), want[name][tensor]) << name << " " << tensor;
    }
    EXPECT_EQ(mapped.size(), want.size());
    EXPECT_TRUE(mapped.contains(kMarkupName));
    for (const auto& e : dom.elements)  // tensor names drawn by the script stay text
        EXPECT_FALSE((e.tag == "b" && e.text == "bold") || (e.tag == "script" && dom.within(e.parent, "policy-map") >= 0));
    std::vector<std::string> others;
    for (const auto& e : dom.elements)
        if (e.tag == "li" && e.parent >= 0 && dom.elements[e.parent].has_class("other")) others.push_back(e.attr("data-model"));
    EXPECT_EQ(others, std::vector<std::string>{kAdapter});
}

void check_known_cells(const Page& dom) {
    std::map<std::string, std::string> legend;  // type -> colour
    for (const auto& e : dom.elements)
        if (e.tag == "li" && e.attrs.contains("data-colour")) legend[e.attr("data-type")] = e.attr("data-colour");
    ASSERT_TRUE(legend.contains("Q6_K") && legend.contains("Q4_K"));
    EXPECT_NE(legend["Q6_K"], legend["Q4_K"]);
    int64_t map = -1;
    for (int64_t m : dom.with_class("policy-map"))
        if (dom.within(m, "policy-group") < 0 && dom.elements[m].attr("data-model") == kPrefix + "Q4_K_M") map = m;
    ASSERT_GE(map, 0);
    auto cells = dom.cells(map);
    const Element* promoted = cells["blk.0.ffn_down.weight"];
    const Element* plain = cells["blk.4.ffn_down.weight"];
    ASSERT_TRUE(promoted && plain);
    EXPECT_EQ(css_colour(dom, palette_class(*promoted)), legend["Q6_K"]);
    EXPECT_EQ(css_colour(dom, palette_class(*plain)), legend["Q4_K"]);
    EXPECT_TRUE(promoted->has_class("dev"));  // not the majority type: outlined
    EXPECT_FALSE(plain->has_class("dev"));
    EXPECT_NE(promoted->attr("title").find("Q6_K [14336,4096]"), std::string::npos) << promoted->attr("title");
    EXPECT_NE(promoted->attr("title").find(" bytes"), std::string::npos);
}

void check_q4k_group(const Page& dom) {
    auto groups = dom.with_class("policy-group");
    ASSERT_EQ(groups.size(), 1u);
    std::set<std::string> members, differing;
    size_t marked = 0;
    for (int64_t m : dom.with_class("policy-map"))
        if (dom.within(m, "policy-group") == groups[0]) members.insert(dom.elements[m].attr("data-model"));
    EXPECT_EQ(members, (std::set<std::string>{kPrefix + "Q4_K_M", kPrefix + "Q4_K_L"}));
    for (int64_t c : dom.with_class("differs")) {
        EXPECT_EQ(dom.within(c, "policy-group"), groups[0]);
        differing.insert(dom.elements[c].attr("data-tensor"));
        ++marked;
    }
    EXPECT_EQ(differing, (std::set<std::string>{"output.weight", "token_embd.weight"}));
    EXPECT_EQ(marked, 4u);  // each in both maps
    std::vector<std::string> summaries;
    for (const auto& e : dom.elements)
        if (e.has_class("summary")) summaries.push_back(e.text);
    EXPECT_EQ(summaries, (std::vector<std::string>{
                             "Q4_K_M: stock",
                             "Q4_K_L: stock+overrides \u2014 token_embd: Q4_K\u2192Q8_0; output: Q6_K\u2192Q8_0 "
                             "(--token-embedding-type q8_0 --output-tensor-type q8_0)"}));
}

void check_table_links(const Page& dom) {
    std::set<std::string> ids;
    for (const auto& e : dom.elements)
        if (e.attrs.contains("id")) ids.insert(e.attr("id"));
    size_t rows = 0;
    for (const auto& e : dom.elements) {
        if (e.tag != "a" || e.parent < 0 || dom.elements[e.parent].tag != "td") continue;
        ++rows;
        EXPECT_TRUE(ids.contains(e.attr("href").substr(1))) << e.attr("href");
    }
    EXPECT_EQ(rows, 12u);  // every model, the adapter too
}

class HtmlReport : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        kit::write_llama31_lineup(dir_->path() / "lineup");
        fs::create_directories(dir_->path() / "odd");
        kit::llama31_quant("Q2_K").write(dir_->path() / "odd" / (kMarkupName + ".gguf"));
        write_odd_models(dir_->path() / "odd");
        db_ = dir_->path() / "catalog.db";
        html_ = dir_->path() / "report.html";
        {
            catalog::Writer cat(db_.string());
            auto rep = crawl::run_crawl(cat, {(dir_->path() / "lineup").string(), (dir_->path() / "odd").string(),
                                              (test::fixtures_dir() / "llama-2-tiny-random.gguf").string()}, {});
            EXPECT_TRUE(rep.failures.empty());
        }
        report_ = test::run_modelcat("report --html '" + html_.string() + "' --db '" + db_.string() + "'");
    }
    static void TearDownTestSuite() { delete dir_; }
    // name -> (tensor -> type), from the catalogue.
    static std::map<std::string, std::map<std::string, std::string>> catalogue_types() {
        SQLite::Database db(db_.string(), SQLite::OPEN_READONLY);
        SQLite::Statement st(db, "SELECT m.name, t.name, t.type_name FROM tensors t JOIN models m USING (model_id)");
        std::map<std::string, std::map<std::string, std::string>> out;
        while (st.executeStep()) out[st.getColumn(0).getString()][st.getColumn(1).getString()] = st.getColumn(2).getString();
        return out;
    }
    static inline test::TempDir* dir_;
    static inline fs::path db_, html_;
    static inline test::CommandResult report_;
};

TEST_F(HtmlReport, PageIsWellFormedTitledAndSelfContained) {
    ASSERT_EQ(report_.exit_code, 0) << report_.err;
    Page raw = parse_page(html_);
    EXPECT_TRUE(raw.problems.empty()) << raw.problems.front();
    size_t svgs = 0;
    for (const auto& e : raw.elements) svgs += e.tag == "svg";
    EXPECT_EQ(svgs, 1u);  // one architecture with sizes: llama
    for (const auto& e : raw.elements) EXPECT_NE(e.tag, "img") << "a model name became markup";
}

// Two launches: the DOM after the script ran (JavaScript on, every host name
// unresolvable, console to stderr), then a screenshot kept in the build folder.
TEST_F(HtmlReport, InHeadlessChromium) {
    if (test::run_command("command -v chromium").exit_code != 0)
        GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs Debian's chromium)";
    ASSERT_EQ(report_.exit_code, 0) << report_.err;
    std::string browser = "timeout 120 chromium --headless --no-sandbox --disable-gpu --host-resolver-rules='MAP * ~NOTFOUND' "
                          "--user-data-dir='" + (dir_->path() / "profile").string() + "' ";
    std::string url = "'file://" + html_.string() + "'";
    test::CommandResult dump = test::run_command(browser + "--enable-logging=stderr --v=0 --dump-dom " + url);
    ASSERT_EQ(dump.exit_code, 0) << dump.err;
    std::ofstream(dir_->path() / "dom.html") << dump.out;
    Page dom = parse_page(dir_->path() / "dom.html");
    check_no_script_errors(dom, dump);
    check_one_map_per_model(dom, catalogue_types());
    check_known_cells(dom);
    check_q4k_group(dom);
    check_table_links(dom);

    fs::path shot = test::executable_dir() / "html_report.png";
    fs::remove(shot);
    test::CommandResult r = test::run_command(browser + "--window-size=1400,2000 --screenshot='" + shot.string() + "' " + url);
    ASSERT_TRUE(fs::exists(shot)) << r.err;
    std::ifstream in(shot, std::ios::binary);
    char magic[8] = {};
    in.read(magic, 8);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG");
    EXPECT_GT(fs::file_size(shot), 10000u);
}

// No browser needed below: the command's own errors and selection.
TEST(HtmlReportCommand, MissingCatalogueAndUnknownModelAreErrors) {
    test::TempDir dir;
    auto r = test::run_modelcat("report --html '" + (dir / "r.html").string() + "' --db '" + (dir / "none.db").string() + "'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no catalogue at " + (dir / "none.db").string() + " (run modelcat crawl first)"), std::string::npos);
    EXPECT_FALSE(fs::exists(dir / "none.db"));  // read-only: nothing created
    { catalog::Writer cat((dir / "c.db").string()); }
    r = test::run_modelcat("report --html '" + (dir / "r.html").string() + "' --db '" + (dir / "c.db").string() + "' --model nope");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no catalogued model 'nope'"), std::string::npos) << r.err;
}

TEST_F(HtmlReport, PatternAndModelNarrowTheSelection) {
    fs::path out = dir_->path() / "narrow.html";
    auto r = test::run_modelcat("report --html '" + out.string() + "' --db '" + db_.string() + "' --pattern '%Q4_K_%' --model llama-2-tiny-random");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Page page = parse_page(out);
    std::set<std::string> models;
    for (int64_t m : page.with_class("policy-map"))
        if (page.within(m, "policy-group") < 0) models.insert(page.elements[m].attr("data-model"));
    EXPECT_EQ(models, (std::set<std::string>{kPrefix + "Q4_K_S", kPrefix + "Q4_K_M", kPrefix + "Q4_K_L", "llama-2-tiny-random"}));
}

// --pattern follows the query patterns' rule (catalog::like_pattern): without %, a part of the name.
// One that selects no model is an error (exit 2, like an unknown --model) and writes no page.
TEST_F(HtmlReport, APatternWithoutPercentIsASubstringAndOneMatchingNothingSaysSo) {
    auto selected = [](const fs::path& out) {
        std::set<std::string> models;
        for (const auto& e : parse_page(out).elements)
            if (e.attrs.contains("data-model") && e.tag == "tr") models.insert(e.attr("data-model"));
        return models;
    };
    const fs::path out = dir_->path() / "substring.html";
    auto r = test::run_modelcat("report --html '" + out.string() + "' --db '" + db_.string() + "' --pattern Q4_K");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(selected(out), (std::set<std::string>{kPrefix + "Q4_K_S", kPrefix + "Q4_K_M", kPrefix + "Q4_K_L"}));
    r = test::run_modelcat("report --html '" + out.string() + "' --db '" + db_.string() + "' --pattern tiny-random");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(selected(out), (std::set<std::string>{"llama-2-tiny-random"}));
    const fs::path none = dir_->path() / "none.html";
    r = test::run_modelcat("report --html '" + none.string() + "' --db '" + db_.string() + "' --pattern Q9_Z");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("modelcat report: no catalogued model's name matches --pattern 'Q9_Z' (LIKE '%Q9_Z%'"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(none));
    r = test::run_modelcat("report --html - --db '" + db_.string() + "' --pattern '%Q9_Z%'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "") << "no page on stdout either";
    EXPECT_NE(r.err.find("--pattern '%Q9_Z%' (LIKE '%Q9_Z%'"), std::string::npos) << r.err;
}

// One tensor at blk.1023 and 6,000 kinds at layer 0: a 1 MB file whose map would be 6.1 M cells
// (before the page's cell cap: a 124 MB DOM, first render after 76 s). The map is not drawn, the
// page says why, and the browser renders the rest at once.
TEST(HtmlReportCommand, AMapOfMillionsOfCellsIsNotDrawnAndThePageStillRenders) {
    if (test::run_command("command -v chromium").exit_code != 0)
        GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs Debian's chromium)";
    test::TempDir dir;
    kit::GgufWriter w;
    w.add_kv("general.architecture", kit::GgufValue::str("llama"));
    w.add_kv("general.name", kit::GgufValue::str("wide"));
    for (int k = 0; k < 6000; ++k) w.add_tensor("blk.0.kind" + std::to_string(k) + ".weight", {32}, 0);
    w.add_tensor("blk.1023.attn_q.weight", {32}, 0);
    w.write(dir / "wide.gguf");
    kit::llama31_quant("Q4_K_M").write(dir / "llama.gguf");
    const std::string db = (dir / "c.db").string(), html = (dir / "r.html").string();
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db " + db + " " + dir.path().string()).exit_code, 0);
    ASSERT_EQ(test::run_modelcat("report --html " + html + " --db " + db).exit_code, 0);
    test::CommandResult dump = test::run_command("timeout 60 chromium --headless --no-sandbox --disable-gpu "
                                                 "--host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir='" +
                                                 (dir / "profile").string() + "' --dump-dom 'file://" + html + "'");
    ASSERT_EQ(dump.exit_code, 0) << dump.err.substr(0, 2000);
    EXPECT_NE(dump.out.find("Not drawn: this map's 6145024 cells would pass the page's 1000000"), std::string::npos);
    EXPECT_LT(dump.out.size(), 20u << 20);  // the llama's map is drawn; the wide one's 6.1 M cells are not
    EXPECT_NE(dump.out.find("data-tensor=\"blk.0.attn_q.weight\""), std::string::npos);
}

// Issue 35: a catalogue someone sends is input like any file. Layers no crawl writes (-1 once made the
// map write before its row, -5 threw, and the int64 ends), each matching its tensor's name, are drawn
// as layer-less tensors; the page is written and the layered row keeps its one column.
TEST(HtmlReportCommand, ACraftedCatalogueWithOutOfRangeLayersStillGetsItsPage) {
    test::TempDir dir;
    kit::GgufWriter w;
    w.add_kv("general.architecture", kit::GgufValue::str("llama"));
    w.add_kv("general.name", kit::GgufValue::str("crafted"));
    for (int layer = 0; layer < 5; ++layer) w.add_tensor("blk." + std::to_string(layer) + ".attn_q.weight", {32}, 0);
    w.write(dir / "crafted.gguf");
    const std::string db = (dir / "c.db").string(), html = (dir / "r.html").string();
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db " + db + " " + (dir / "crafted.gguf").string()).exit_code, 0);
    const std::vector<std::pair<int, std::string>> crafted = {  // after blk.0: its row holds a cell when -1 comes
        {1, "-1"}, {2, "-5"}, {3, "9223372036854775807"}, {4, "-9223372036854775808"}};
    {
        SQLite::Database cat(db, SQLite::OPEN_READWRITE);
        for (const auto& [layer, value] : crafted)
            cat.exec("UPDATE tensor_names SET layer = " + value + ", name = 'blk." + value + ".attn_q.weight' WHERE name = 'blk." +
                     std::to_string(layer) + ".attn_q.weight'");
    }
    test::CommandResult r = test::run_modelcat("report --html " + html + " --db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(html);
    const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(page.find("{\"L\":1,"), std::string::npos) << "blk.0 alone is layered: one column";
    for (const auto& [layer, value] : crafted)
        EXPECT_NE(page.find("[\"blk." + value + ".attn_q.weight\","), std::string::npos) << value << " is a layer-less tensor";
}

// Sizes no crawl writes: 2^62 bytes and 1 KiB more (one double's step there). In GiB they are 2^-20
// apart, and a tick step of that size is under half a double's step at 2^32: the scatter's axis once
// never reached its end (the page grew until memory ran out).
TEST(HtmlReportCommand, ACraftedCatalogueWithSizesOneDoubleApartStillGetsItsScatter) {
    test::TempDir dir;
    for (const char* name : {"a", "b"}) {
        kit::GgufWriter w;
        w.add_kv("general.architecture", kit::GgufValue::str("llama"));
        w.add_tensor("token_embd.weight", {256}, 0);
        w.write(dir / (std::string(name) + ".gguf"));
    }
    const std::string db = (dir / "c.db").string();
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db " + db + " " + dir.path().string()).exit_code, 0);
    {
        SQLite::Database cat(db, SQLite::OPEN_READWRITE);
        cat.exec("UPDATE models SET header_bytes = 0, file_bytes = 4611686018427387904 + 1024 * (model_id - 1)");
    }
    const std::string limits = test::sanitized() ? "timeout 10 " : "ulimit -v 4194304; timeout 10 ";  // the old loop grew without end
    test::CommandResult r = test::run_modelcat("report --html - --db " + db, limits);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("<figure class=\"scatter\">"), std::string::npos);
    EXPECT_EQ(r.out.find("nan\""), std::string::npos) << "no coordinate divides by an empty range";
}

// Counts no crawl writes: every tensor 9e18 bytes (their sum per type passes int64: the legend once
// overflowed). A group view replaced by one whose model_ids are not ids (once "modelcat: stoll") is
// now refused before anything runs: the catalogue's views must be this modelcat's.
TEST(HtmlReportCommand, ACraftedCatalogueWithHugeCountsAndForeignIdsStillGetsItsPage) {
    test::TempDir dir;
    kit::GgufWriter w;
    w.add_kv("general.architecture", kit::GgufValue::str("llama"));
    for (int layer = 0; layer < 2; ++layer) w.add_tensor("blk." + std::to_string(layer) + ".attn_q.weight", {32}, 0);
    w.write(dir / "crafted.gguf");
    const std::string db = (dir / "c.db").string();
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db " + db + " " + (dir / "crafted.gguf").string()).exit_code, 0);
    SQLite::Database(db, SQLite::OPEN_READWRITE).exec("UPDATE tensor_layouts SET bytes = 9000000000000000000");
    test::CommandResult r = test::run_modelcat("report --html - --db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("No two models of this selection declare the same file_type"), std::string::npos);
    {
        SQLite::Database cat(db, SQLite::OPEN_READWRITE);
        cat.exec("DROP VIEW same_file_type_different_policy");
        cat.exec("CREATE VIEW same_file_type_different_policy AS SELECT 'llama' AS architecture, 'F32' AS file_type_name, "
                 "0 AS file_type, 'one,99999999999999999999,1' AS model_ids");
    }
    r = test::run_modelcat("report --html - --db " + db);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("view same_file_type_different_policy is not schema version"), std::string::npos) << r.err;
}

}  // namespace
