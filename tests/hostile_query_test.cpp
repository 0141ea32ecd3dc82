// `query` given what an attacker (or an accident) hands it, through the binary
// under a memory limit and a timeout: parameters that look like numbers, a
// .sql "file" that is a FIFO, a device or 2 GiB of hole, a catalogue
// that a first crawl is still creating, a .sql file that reaches for code
// execution or for other files, SQL that runs forever or eats the heap, and a
// catalogue whose views are not this modelcat's.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <iterator>

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

// A catalogue of one real model, crawled into `tmp`.
std::string crawled_catalogue(const test::TempDir& tmp) {
    const std::string db = (tmp / "c.db").string();
    EXPECT_EQ(test::run_modelcat("crawl --quiet --db " + db + " " + (test::fixtures_dir() / "ggml-vocab-llama-spm.gguf").string()).exit_code, 0);
    return db;
}

// `query` of a .sql file holding `sql`, under the guard.
test::CommandResult query_sql(const test::TempDir& tmp, const std::string& db, const std::string& sql, const std::string& flags = "") {
    std::ofstream(tmp / "report.sql") << sql;
    return test::run_modelcat("query " + (tmp / "report.sql").string() + " -f csv " + flags + " --db " + db, kQueryGuard);
}

// Before: fts3_tokenizer printed a libsqlite3 address (exit 0) and, given one, jumped to it (exit 139);
// VACUUM INTO wrote copy.db and ATTACH read another database (exit 0 both).
TEST(HostileQuery, AReportFileReadsTheCatalogueAndNothingElse) {
    test::TempDir tmp;
    const std::string db = crawled_catalogue(tmp);
    const std::string copy = (tmp / "copy.db").string(), other = (tmp / "other.db").string();
    SQLite::Database(other, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE).exec("CREATE TABLE secret (s TEXT); INSERT INTO secret VALUES ('hunter2')");
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"SELECT hex(fts3_tokenizer('simple'));", "fts3_tokenizer"},
        {"SELECT fts3_tokenizer('simple', X'4141414141414141');\nCREATE VIRTUAL TABLE temp.v USING fts3(a, tokenize=simple);",
         "fts3_tokenizer"},
        {"CREATE VIRTUAL TABLE temp.v USING fts3(a, tokenize=simple);", "virtual table"},
        {"VACUUM INTO '" + copy + "';", "VACUUM"},
        {"ATTACH '" + other + "' AS o;\nSELECT s FROM o.secret;", "ATTACH"},
        {"PRAGMA trusted_schema = 1;\nSELECT 1;", "PRAGMA trusted_schema"},
        {"CREATE TEMP TABLE t AS SELECT 1 AS x;\nSELECT x FROM t;", "writes"},
    };
    for (const auto& [sql, named] : refused) {
        test::CommandResult r = query_sql(tmp, db, sql);
        EXPECT_EQ(r.exit_code, 2) << sql << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find("refused: a report only reads the catalogue"), std::string::npos) << sql << "\n" << r.err;
        EXPECT_NE(r.err.find(named), std::string::npos) << sql << "\n" << r.err;
        EXPECT_EQ(r.out, "") << sql;
    }
    EXPECT_FALSE(fs::exists(copy));
    // what reports do still runs: a shipped report's text from a file, pragma functions, a CTE
    std::ifstream shipped(fs::path(MODELCAT_SOURCE_DIR) / "queries" / "quants.sql");
    const std::string quants((std::istreambuf_iterator<char>(shipped)), std::istreambuf_iterator<char>());
    test::CommandResult ok = query_sql(tmp, db, quants);
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    test::CommandResult columns = query_sql(tmp, db, "WITH c AS (SELECT name FROM pragma_table_info('models')) SELECT count(*) FROM c;");
    EXPECT_EQ(columns.exit_code, 0) << columns.err;
}

// Before: --query-timeout was an unknown flag and the loop ran until `timeout` killed it; the
// doubling string grew to SQLite's 1e9-byte string cap ("string or blob too big").
TEST(HostileQuery, AStatementStopsAtItsDeadlineAndAtTheHeapLimit) {
    test::TempDir tmp;
    const std::string db = crawled_catalogue(tmp);
    const auto start = std::chrono::steady_clock::now();
    test::CommandResult forever = query_sql(tmp, db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n;",
                                            "--query-timeout 1s");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_EQ(forever.exit_code, 2) << forever.err;
    EXPECT_NE(forever.err.find("a statement ran past its time limit (--query-timeout)"), std::string::npos) << forever.err;
    test::CommandResult heap = query_sql(tmp, db,
                                         "WITH RECURSIVE s(t) AS (SELECT 'x' UNION ALL SELECT t || t FROM s WHERE length(t) < 1000000000)\n"
                                         "SELECT max(length(t)) FROM s;");
    EXPECT_EQ(heap.exit_code, 2) << heap.err;
    EXPECT_NE(heap.err.find("a statement needed more than SQLite's heap limit of 512 MiB"), std::string::npos) << heap.err;
    EXPECT_NE(test::run_modelcat("query --help").out.find("--query-timeout"), std::string::npos);
}

// The deadline is CPU time: a statement whose reader stops reading for longer (`query | less`) runs on
// when the pipe drains (a wall clock stopped it).
TEST(HostileQuery, AStatementWaitingOnItsReaderIsNotStopped) {
    test::TempDir tmp;
    const std::string db = crawled_catalogue(tmp);
    std::ofstream(tmp / "rows.sql") << "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
                                       "SELECT i, printf('%020d', i) AS padded FROM n;";
    const fs::path status = tmp / "status";
    const test::CommandResult r = test::run_modelcat("query " + (tmp / "rows.sql").string() + " -f csv --query-timeout 1s --db " + db +
                                                         "; echo $? >" + status.string() + "; } | { sleep 3; wc -l; }",
                                                     "{ ");
    std::ifstream in(status);
    std::string exit_code;
    in >> exit_code;
    EXPECT_EQ(exit_code, "0");  // 600 KB of rows outgrow the pipe's buffer: the writer waits 3 s on `sleep`, past the 1 s limit
    EXPECT_EQ(std::stoul(r.out), 20001u) << r.out;  // the header and every row
}

// A view named `view` with the columns of the catalogue's `view` (a table or a view), each the endless counter `i` of a recursive CTE.
std::string endless_view(SQLite::Database& db, const std::string& view) {
    SQLite::Statement columns(db, "SELECT name FROM pragma_table_info(?)");
    columns.bind(1, view);
    std::string select;
    while (columns.executeStep()) select += (select.empty() ? "" : ", ") + std::string("i AS \"") + columns.getColumn(0).getString() + "\"";
    return "CREATE VIEW " + view + " AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT " + select + " FROM n";
}

// Before: each command ran the catalogue's own endless view until `timeout` killed it (exit 124).
TEST(HostileCatalogue, ViewsThatAreNotOursAreRefusedBeforeAnythingRuns) {
    test::TempDir tmp;
    const std::string db = crawled_catalogue(tmp);
    {
        SQLite::Database hostile(db, SQLite::OPEN_READWRITE);
        for (const std::string name : {"quant_summary", "model_refs", "model_events"}) {  // model_events is a table
            const std::string replacement = endless_view(hostile, name);
            const std::string type = hostile.execAndGet("SELECT type FROM sqlite_schema WHERE name = '" + name + "'").getString();
            hostile.exec("DROP " + type + " " + name);
            hostile.exec(replacement);
        }
    }
    const std::string out = (tmp / "out.html").string();
    for (const std::string& command : std::vector<std::string>{"query quant_summary", "report --html " + out, "report --model 1 --html " + out,
                                                                "changes --since last"}) {
        test::CommandResult r = test::run_modelcat(command + " --db " + db, kQueryGuard);
        EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.err;
        EXPECT_NE(r.err.find("is not the catalogue this modelcat expects: "), std::string::npos) << command << "\n" << r.err;
    }
    EXPECT_FALSE(fs::exists(out));
}

// A user's own view beside ours is theirs to keep (a migration keeps it too); a view of ours named
// in other letters is still ours.
TEST(HostileCatalogue, AUsersOwnViewIsKeptAndOursIsFoundInAnyCase) {
    test::TempDir tmp;
    const std::string db = crawled_catalogue(tmp);
    SQLite::Database(db, SQLite::OPEN_READWRITE).exec("CREATE VIEW my_models AS SELECT name FROM models");
    test::CommandResult own = test::run_modelcat("query quant_summary --db " + db, kQueryGuard);
    EXPECT_EQ(own.exit_code, 0) << own.err;
    {
        SQLite::Database hostile(db, SQLite::OPEN_READWRITE);
        const std::string replacement = endless_view(hostile, "quant_summary");
        hostile.exec("DROP VIEW quant_summary");
        hostile.exec("CREATE VIEW Quant_Summary" + replacement.substr(std::string("CREATE VIEW quant_summary").size()));
    }
    test::CommandResult r = test::run_modelcat("query quant_summary --db " + db, kQueryGuard);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("view quant_summary"), std::string::npos) << r.err;
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

// A trigger a stranger put on the catalogue's tables would run at each write of a crawl into it:
// here an endless one (before: the crawl ran on, writing, until killed), and one whose
// name would break out of a quoted string. Both are refused, the crawl writes nothing, and readers
// refuse the catalogue too; fts3_tokenizer is off on a writer's connection as on a reader's.
TEST(HostileCatalogue, TriggersThatAreNotOursAreRefusedBeforeACrawlWrites) {
    test::TempDir tmp;
    const std::string db = crawled_catalogue(tmp);
    const std::string model = (test::fixtures_dir() / "ggml-vocab-llama-spm.gguf").string();
    for (const std::string name : {"evil", "x' OR '1'='1"}) {
        SCOPED_TRACE(name);
        {
            SQLite::Database cat(db, SQLite::OPEN_READWRITE);
            cat.exec("DROP TRIGGER IF EXISTS \"evil\"; DROP TRIGGER IF EXISTS \"x' OR '1'='1\"");
            cat.exec("CREATE TRIGGER \"" + name + "\" AFTER INSERT ON crawls BEGIN "
                     "INSERT INTO errors (crawl_id, location, message) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                     "SELECT NEW.crawl_id, 'x', i FROM n; END");
        }
        const std::string crawls = test::sql_value(db, "SELECT count(*) FROM crawls");
        // SIGKILL and a file-size cap: stuck in the trigger's statement, the crawl outlived SIGTERM and wrote 45 GB in 23 minutes
        const test::CommandResult crawl = test::run_modelcat("crawl --quiet --db " + db + " " + model, "ulimit -f 2097152; timeout -s KILL 20 ");
        EXPECT_EQ(crawl.exit_code, 2) << crawl.err;
        EXPECT_NE(crawl.err.find("is not modelcat's (a crawl writes through no trigger of a stranger's)"), std::string::npos) << crawl.err;
        EXPECT_EQ(test::sql_value(db, "SELECT count(*) FROM crawls"), crawls);
        const test::CommandResult read = query_sql(tmp, db, "SELECT count(*) FROM models;");
        EXPECT_EQ(read.exit_code, 2) << read.err;
    }
    SQLite::Database(db, SQLite::OPEN_READWRITE).exec("DROP TRIGGER \"x' OR '1'='1\"");
    EXPECT_EQ(test::run_modelcat("crawl --quiet --db " + db + " " + model, kQueryGuard).exit_code, 0);
}
