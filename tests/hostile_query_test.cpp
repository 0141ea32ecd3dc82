// `query` given what an attacker (or an accident) hands it, through the binary
// under a memory limit and a timeout: parameters that look like numbers, a
// .sql "file" that is a FIFO, a device or 2 GiB of hole, and a catalogue
// that a first crawl is still creating.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "kit/gguf_writer.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

// ASan reserves terabytes of address space: no ulimit -v under it
const std::string kQueryGuard = test::sanitized() ? "timeout 20 " : "ulimit -v 1048576; timeout 20 ";

// Before: 0123, 1e5 and 3.10 were bound as numbers and found nothing; nan bound NULL and found all.
TEST(HostileQuery, ParametersThatLookLikeNumbersAreNames) {
    test::TempDir tmp;
    for (const std::string name : {"0123", "1e5", "3.10", "plain"}) {
        kit::GgufWriter w;
        w.add_kv("general.name", kit::GgufValue::str(name));
        w.write(tmp / (name + ".gguf"));
    }
    const std::string db = (tmp / "c.db").string();
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db " + db + " " + tmp.path().string()).exit_code, 0);
    for (const std::string name : {"0123", "1e5", "3.10"}) {
        test::CommandResult r = test::run_modelcat("query quant_summary -f csv -p kind=% -p pattern=" + name + " --db " + db);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.out.find("\n" + name + ","), std::string::npos) << name << "\n" << r.out;
    }
    test::CommandResult nan = test::run_modelcat("query quant_summary -f csv -p kind=% -p pattern=nan --db " + db);
    ASSERT_EQ(nan.exit_code, 0) << nan.err;
    EXPECT_EQ(nan.out.find("plain"), std::string::npos) << nan.out;
    // a parameter declared an integer is one, and says so when it is not
    EXPECT_EQ(test::run_modelcat("query crawl_log -f csv -p limit=1 --db " + db).exit_code, 0);
    test::CommandResult bad = test::run_modelcat("query crawl_log -p limit=ten --db " + db);
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("parameter 'limit' is an integer, got 'ten'"), std::string::npos) << bad.err;
}

// Before: a FIFO hung forever, a link to /dev/zero read until bad_alloc.
TEST(HostileQuery, AReportFileThatIsNotARegularFileIsRefusedAtOnce) {
    test::TempDir tmp;
    const std::string db = (tmp / "c.db").string();
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db " + db + " " + (test::fixtures_dir() / "ggml-vocab-llama-spm.gguf").string()).exit_code, 0);
    ASSERT_EQ(mkfifo((tmp / "fifo.sql").c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", tmp / "zero.sql");
    test::CommandResult fifo = test::run_modelcat("query " + (tmp / "fifo.sql").string() + " --db " + db, kQueryGuard);
    EXPECT_EQ(fifo.exit_code, 2) << fifo.err;
    EXPECT_NE(fifo.err.find("fifo.sql: a named pipe, not a regular file"), std::string::npos) << fifo.err;
    test::CommandResult zero = test::run_modelcat("query " + (tmp / "zero.sql").string() + " --db " + db, kQueryGuard);
    EXPECT_EQ(zero.exit_code, 2) << zero.err;
    EXPECT_NE(zero.err.find("zero.sql: a character device, not a regular file"), std::string::npos) << zero.err;
    { std::ofstream(tmp / "huge.sql") << "SELECT 1;"; }
    fs::resize_file(tmp / "huge.sql", 2ull << 30);  // 2 GiB, a hole
    test::CommandResult huge = test::run_modelcat("query " + (tmp / "huge.sql").string() + " --db " + db, kQueryGuard);
    EXPECT_EQ(huge.exit_code, 2) << huge.err;
    EXPECT_NE(huge.err.find("2147483648 bytes is more than the cap of 1048576"), std::string::npos) << huge.err;
}

// Before: "is an empty database, not a modelcat catalogue (run modelcat crawl first)".
TEST(HostileQuery, ACatalogueAFirstCrawlIsCreatingSaysSo) {
    test::TempDir tmp;
    const std::string db = (tmp / "c.db").string();
    SQLite::Database creating(db, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    creating.exec("PRAGMA journal_mode = WAL");
    SQLite::Transaction schema(creating);  // as a first crawl writes the schema: not committed yet
    creating.exec("CREATE TABLE models (model_id INTEGER PRIMARY KEY)");
    test::CommandResult r = test::run_modelcat("query quant_summary --db " + db, kQueryGuard);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(db + " is being created by a crawl; try again in a moment"), std::string::npos) << r.err;
}

// Before: results were held whole (3 M rows took 691 MB) whatever the format.
TEST(HostileQuery, ALargeResultStreamsAndATableSaysWhichFormatsStream) {
    if (test::sanitized()) GTEST_SKIP() << "ASan reserves terabytes of address space; ulimit -v cannot apply";
    test::TempDir tmp;
    const std::string db = (tmp / "c.db").string();
    ASSERT_EQ(test::run_modelcat("crawl --quiet --db " + db + " " + (test::fixtures_dir() / "ggml-vocab-llama-spm.gguf").string()).exit_code, 0);
    std::ofstream(tmp / "big.sql") << "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000)\n"
                                      "SELECT i, 'model-' || i AS name FROM n;\n";
    const std::string limit = "ulimit -v 262144; timeout 120 ";  // 256 MiB of address space
    for (const std::string f : {"csv", "json"}) {
        const fs::path out = tmp / ("out." + f);
        test::CommandResult r = test::run_command("{ " + limit + test::modelcat_binary() + " query " + (tmp / "big.sql").string() +
                                                  " -f " + f + " --db " + db + " > " + out.string() + "; }");
        ASSERT_EQ(r.exit_code, 0) << f << ": " << r.err;
        std::ifstream in(out);
        size_t lines = 0;
        std::string line, last;
        while (std::getline(in, line)) ++lines, last = line;
        EXPECT_EQ(lines, f == "csv" ? 3'000'001u : 3'000'002u) << f;
        EXPECT_EQ(last, f == "csv" ? "3000000,model-3000000" : "]") << f;
    }
    test::CommandResult table = test::run_modelcat("query " + (tmp / "big.sql").string() + " --db " + db, limit);
    EXPECT_EQ(table.exit_code, 2);
    EXPECT_NE(table.err.find("the result passes 64 MiB as an aligned table: use -f csv or -f json, which stream it"), std::string::npos)
        << table.err;
}

}  // namespace
