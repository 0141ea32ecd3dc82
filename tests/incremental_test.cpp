// Nightly runs: an unchanged re-crawl reads nothing, changes and deletions are
// noticed and kept as history, a killed crawl resumes cleanly and two crawlers
// can share one database. Everything through the real binary and SQLite file.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "kit/kinds.hpp"
#include "kit/llama31.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

class Incremental : public ::testing::Test {
protected:
    void SetUp() override {
        test::copy_llama31_lineup(store_);
        first_ = crawl();
    }
    test::CommandResult crawl(const std::string& extra = "") {
        return test::run_modelcat("crawl --db " + db_.string() + " " + extra + " " + store_.string());
    }
    fs::path file(const std::string& quant) { return store_ / kit::llama31_file_name(quant); }
    test::TempDir tmp_;
    fs::path store_ = tmp_ / "store";
    fs::path db_ = tmp_ / "catalog.db";
    test::CommandResult first_;
};

TEST_F(Incremental, UnchangedRecrawlReadsNoHeaderBytes) {
    ASSERT_EQ(first_.exit_code, 0) << first_.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT files_new || '/' || bytes_read FROM crawls WHERE crawl_id = 1"),
              "8/" + test::sql_value(db_, "SELECT sum(bytes_read) FROM files"));
    test::CommandResult again = crawl();
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT files_new || ' ' || files_changed || ' ' || files_unchanged || ' ' || bytes_read || ' ' || requests"
                  " FROM crawls WHERE crawl_id = 2"),
              "0 0 8 0 0");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE crawl_id = 1 AND checked_crawl_id = 2"), "8");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM model_events WHERE crawl_id = 2"), "0");
    EXPECT_NE(again.err.find("0 files ok (0 new, 0 changed), 8 unchanged"), std::string::npos) << again.err;
    // --force reads everything again
    test::CommandResult forced = crawl("--force");
    EXPECT_EQ(test::sql_value(db_, "SELECT files_changed FROM crawls WHERE crawl_id = 3"), "8");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM models"), "8");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM tensors"), std::to_string(8 * 292));
}

// More large headers than the crawl reads at once (two per core): the reads wait their turn for a
// buffer an earlier read used, the truncated ones fail after their second or third read and hand
// theirs on, and every file reads as it does read alone.
TEST_F(Incremental, ManyLargeHeadersShareFewBuffers) {
    const std::vector<uint64_t> cuts{100000, 3000000, 6000000, 7800000};
    for (uint64_t cut : cuts) {
        std::string head(cut, '\0');  // the file is sparse past its header: only the head is copied
        std::ifstream(file("Q4_K_M"), std::ios::binary).read(head.data(), static_cast<std::streamsize>(cut));
        std::ofstream(store_ / ("0-cut-" + std::to_string(cut) + ".gguf"), std::ios::binary) << head;  // read first
    }
    test::CommandResult r = crawl("--force --jobs 16");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("8 files ok (0 new, 8 changed), 0 unchanged, 0 gone, 4 failed"), std::string::npos) << r.err;
    for (uint64_t cut : cuts) EXPECT_NE(r.err.find("0-cut-" + std::to_string(cut) + ".gguf: offset"), std::string::npos) << r.err;
    const fs::path alone = tmp_ / "alone.db";
    test::run_modelcat("crawl --jobs 1 --db " + alone.string() + " " + store_.string());
    const std::string hashes = "SELECT count(*) || ':' || group_concat(location || ' ' || header_hash || ' ' || header_bytes, ';') FROM "
                               "(SELECT * FROM files WHERE status = 'ok' AND header_hash IS NOT NULL ORDER BY location)";
    EXPECT_EQ(test::sql_value(db_, hashes), test::sql_value(alone, hashes));
    EXPECT_EQ(test::sql_value(alone, hashes).substr(0, 2), "8:");
    // and as the parser reads it from memory (tests/stored_hashes_test.cpp)
    EXPECT_EQ(test::sql_value(db_, "SELECT header_hash FROM files WHERE location LIKE '%-Q4_K_M.gguf'"), "6e7a9b2892336faf");
}

TEST_F(Incremental, RequantizedFileIsReadAgainAndItsHistoryKept) {
    std::string before = test::sql_value(db_, "SELECT census FROM quant_summary WHERE name LIKE '%Q4_K_M'");
    EXPECT_EQ(before, "12:193 14:33 0:66");
    kit::llama31_quant("Q4_K_L").write(file("Q4_K_M"));  // same path, different policy and size
    test::CommandResult again = crawl();
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT files_changed || ' ' || files_unchanged FROM crawls WHERE crawl_id = 2"), "1 7");
    EXPECT_EQ(test::sql_value(db_, "SELECT census FROM quant_summary WHERE name LIKE '%Q4_K_M'"), "12:192 8:2 14:32 0:66");
    test::CommandResult changes = test::run_modelcat("query changes --db " + db_.string() + " --format csv");
    EXPECT_NE(changes.out.find("2,changed,re-quantized," + file("Q4_K_M").string() +
                               ",4920739232,5310637472,12:193 14:33 0:66,12:192 8:2 14:32 0:66"),
              std::string::npos)
        << changes.out;
}

TEST_F(Incremental, DeletedFileIsMarkedGoneNotDeleted) {
    fs::remove(file("Q2_K"));
    test::CommandResult again = crawl();
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT status || ' ' || gone_crawl_id FROM files WHERE location LIKE '%Q2_K.gguf'"), "gone 2");
    EXPECT_EQ(test::sql_value(db_, "SELECT files_gone FROM crawls WHERE crawl_id = 2"), "1");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM tensors t JOIN files f USING (file_id) WHERE f.location LIKE '%Q2_K.gguf'"), "292");
    EXPECT_EQ(test::sql_value(db_, "SELECT event || ' ' || census_before FROM model_events WHERE crawl_id = 2"), "gone 10:129 11:64 14:1 12:32 0:66");
    // named explicitly after it vanished: still gone, not a failure
    fs::remove(file("Q6_K"));
    test::CommandResult named = test::run_modelcat("crawl --db " + db_.string() + " " + file("Q6_K").string());
    EXPECT_EQ(named.exit_code, 0) << named.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT status FROM files WHERE location LIKE '%Q6_K.gguf'"), "gone");
}

TEST_F(Incremental, AFileThatTurnsBadKeepsItsRowsAsStale) {
    {
        std::fstream f(file("Q8_0"), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(0);
        f << "GGML";  // break the magic, same size, new mtime
    }
    test::CommandResult again = crawl();
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find("offset 0: not a GGUF file"), std::string::npos) << again.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT status FROM files WHERE location LIKE '%Q8_0.gguf'"), "stale");
    EXPECT_EQ(test::sql_value(db_, "SELECT census FROM quant_summary WHERE name LIKE '%Q8_0'"), "8:226 0:66");
    EXPECT_EQ(test::sql_value(db_, "SELECT event FROM model_events WHERE crawl_id = 2"), "failed");
    kit::llama31_quant("Q8_0").write(file("Q8_0"));  // repaired: read again, ok again
    EXPECT_EQ(crawl().exit_code, 0);
    EXPECT_EQ(test::sql_value(db_, "SELECT status FROM files WHERE location LIKE '%Q8_0.gguf'"), "ok");
}

TEST_F(Incremental, CopiesShowAsOneContentWithSeveralLocations) {
    fs::create_directories(tmp_ / "mirror");
    kit::llama31_quant("Q4_K_S").write(tmp_ / "mirror" / "copy.gguf");  // a byte-identical copy, still sparse
    ASSERT_EQ(test::run_modelcat("crawl --db " + db_.string() + " " + (tmp_ / "mirror").string()).exit_code, 0);
    EXPECT_EQ(test::sql_value(db_, "SELECT location_count || ' ' || size FROM duplicates"), "2 4692673952");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM duplicates"), "1");
}

TEST_F(Incremental, DryRunListsWhatWouldBeRead) {
    kit::llama31_quant("Q4_K_S").write(file("Q2_K"));
    kit::llama31_quant("Q4_K_S").write(store_ / "new.gguf");
    test::CommandResult dry = crawl("--dry-run -v");  // -v: unchanged models listed too
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_NE(dry.out.find("changed\tMeta-Llama-3.1-8B-Instruct-Q2_K"), std::string::npos) << dry.out;
    EXPECT_NE(dry.out.find("new\tnew\t"), std::string::npos) << dry.out;
    EXPECT_NE(dry.out.find("unchanged\tMeta-Llama-3.1-8B-Instruct-Q8_0"), std::string::npos) << dry.out;
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM crawls"), "1");  // nothing written
}

TEST_F(Incremental, JsonSummaryForJobLogs) {
    fs::remove(file("IQ2_M"));
    std::ofstream(store_ / "bad.gguf") << "nope";
    test::CommandResult r = crawl("--json-summary --quiet");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("\"files_ok\": 0, \"files_new\": 0, \"files_changed\": 0, \"files_unchanged\": 7, "
                         "\"files_gone\": 1, \"files_failed\": 1"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\"offset\": 0, \"message\": \"not a GGUF file"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("unchanged: "), std::string::npos);  // --quiet: failures and the summary only
}

pid_t spawn_crawl(const fs::path& db, const std::vector<fs::path>& inputs) {
    std::vector<std::string> args = {"crawl", "--quiet", "--db", db.string()};
    for (const auto& i : inputs) args.push_back(i.string());
    return test::spawn_modelcat(args);
}

using test::wait_exit;

// Past Writer::kLookupsBeforeLoading files a re-crawl answers "was it catalogued, and how" from
// identities read in one SELECT: a changed, a new and a removed file are still told apart, and a
// file the crawl itself writes is asked again.
TEST(LargeRecrawl, IdentitiesReadAtOnceStillSeeEveryChange) {
    test::TempDir tmp;
    const fs::path store = tmp / "store", db = tmp / "catalog.db";
    fs::create_directories(store);
    const int n = 400;
    for (int i = 0; i < n; ++i) kit::tiny_llama("m" + std::to_string(i), 8).write(store / ("m" + std::to_string(i) + ".gguf"));
    ASSERT_EQ(test::run_modelcat("crawl -q --db " + db.string() + " " + store.string()).exit_code, 0);
    kit::tiny_llama("changed", 2).write(store / "m7.gguf");
    kit::tiny_llama("new", 8).write(store / "new.gguf");
    fs::remove(store / "m300.gguf");
    test::CommandResult r = test::run_modelcat("crawl -q --db " + db.string() + " " + store.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::sql_value(db, "SELECT files_new || ' ' || files_changed || ' ' || files_unchanged || ' ' || files_gone"
                                  " FROM crawls ORDER BY crawl_id DESC LIMIT 1"),
              "1 1 " + std::to_string(n - 2) + " 1");
    EXPECT_NE(test::sql_value(db, "SELECT census FROM quant_summary WHERE location LIKE '%/m7.gguf'"),
              test::sql_value(db, "SELECT census FROM quant_summary WHERE location LIKE '%/m8.gguf'"));
    test::CommandResult again = test::run_modelcat("crawl -q --db " + db.string() + " " + store.string());
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(test::sql_value(db, "SELECT files_new || ' ' || files_changed || ' ' || files_unchanged || ' ' || files_gone"
                                  " FROM crawls ORDER BY crawl_id DESC LIMIT 1"),
              "0 0 " + std::to_string(n) + " 0");
}

// Returns once the catalogue at `db` holds `n` models (or the crawl ended).
void wait_for_models(const fs::path& db, int n, pid_t crawler) {
    for (int i = 0; n > 0 && i < 20000; ++i) {
        siginfo_t info{};
        if (waitid(P_PID, static_cast<id_t>(crawler), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == crawler) return;
        try {
            SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
            if (d.execAndGet("SELECT count(*) FROM models").getInt() >= n) return;
        } catch (const SQLite::Exception&) {  // not created, or not migrated yet
        }
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
}

TEST(CrashSafety, KillNineAtSeveralPointsThenResume) {
    test::TempDir tmp;
    // Eight copies of the lineup, 64 models: a crawl of them outlasts several of the writer's 0.2 s
    // batches (catalog/writer.hpp), so committed models show while it runs.
    constexpr int kModels = 64;
    std::vector<fs::path> dirs;
    for (int i = 0; i < kModels / 8; ++i) {
        dirs.push_back(tmp / ("store" + std::to_string(i)));
        test::copy_llama31_lineup(dirs.back());
    }
    const fs::path db = tmp / "catalog.db";
    int killed_mid_crawl = 0;
    // Killed at points reached, not after delays: at once, then once 2, 9 and 17 models are in.
    for (int models_in : {0, 2, 9, 17}) {
        pid_t pid = spawn_crawl(db, dirs);
        wait_for_models(db, models_in, pid);
        kill(pid, SIGKILL);
        wait_exit(pid);
        if (!fs::exists(db)) continue;  // killed before the database was created
        SQLite::Database d(db.string());
        EXPECT_EQ(d.execAndGet("PRAGMA integrity_check").getString(), "ok") << "after kill at " << models_in << " models";
        if (d.execAndGet("PRAGMA user_version").getInt() == 0) {  // killed inside the schema's one transaction
            EXPECT_EQ(d.execAndGet("SELECT count(*) FROM sqlite_schema").getInt(), 0);
            continue;
        }
        int models = d.execAndGet("SELECT count(*) FROM models").getInt();
        // every catalogued model is whole: 292 tensors, its census written
        EXPECT_EQ(d.execAndGet("SELECT count(*) FROM tensors").getInt(), models * 292);
        EXPECT_EQ(d.execAndGet("SELECT count(*) FROM census").getInt(),
                  d.execAndGet("SELECT sum(length(census) - length(replace(census, ':', ''))) FROM quant_summary").getInt());
        if (models > 0 && models < kModels) ++killed_mid_crawl;
    }
    EXPECT_GE(killed_mid_crawl, 1) << "no kill landed in the middle of the crawl";
    EXPECT_EQ(wait_exit(spawn_crawl(db, dirs)), 0);
    SQLite::Database d(db.string());
    EXPECT_EQ(d.execAndGet("PRAGMA integrity_check").getString(), "ok");
    EXPECT_EQ(d.execAndGet("SELECT count(*) FROM models").getInt(), kModels);
    EXPECT_EQ(d.execAndGet("SELECT count(*) || ' ' || count(DISTINCT location) FROM files").getString(),
              std::to_string(kModels) + " " + std::to_string(kModels));
    EXPECT_EQ(d.execAndGet("SELECT count(*) FROM tensors").getInt(), kModels * 292);
    EXPECT_EQ(d.execAndGet("SELECT count(*) FROM files WHERE status <> 'ok'").getInt(), 0);
}

// Several models share a transaction (catalog/writer.hpp), each in its own savepoint: a database
// error while writing the fifth keeps the four before it, whole, and leaves nothing of the fifth.
TEST(CrashSafety, ADatabaseErrorLosesOnlyTheModelBeingWritten) {
    test::TempDir tmp;
    test::copy_llama31_lineup(tmp / "store");
    fs::create_directories(tmp / "empty");
    const fs::path db = tmp / "catalog.db";
    ASSERT_EQ(test::run_modelcat("crawl -q --db " + db.string() + " " + (tmp / "empty").string()).exit_code, 0);
    // A user's own index may stand in a catalogue (a trigger may not): this one refuses the fifth model's second census row.
    SQLite::Database(db.string(), SQLite::OPEN_READWRITE).exec("CREATE UNIQUE INDEX refuse_fifth ON census(model_id >= 5) WHERE model_id >= 5");
    test::CommandResult r = test::run_modelcat("crawl -q --db " + db.string() + " " + (tmp / "store").string());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("UNIQUE constraint failed: index 'refuse_fifth'"), std::string::npos) << r.err;
    SQLite::Database d(db.string(), SQLite::OPEN_READWRITE);
    EXPECT_EQ(d.execAndGet("PRAGMA integrity_check").getString(), "ok");
    EXPECT_EQ(d.execAndGet("SELECT count(*) || ' ' || (SELECT count(*) FROM files) || ' ' || (SELECT count(*) FROM tensor_rows) || ' ' ||"
                           " (SELECT count(*) FROM tensors) || ' ' || (SELECT count(DISTINCT model_id) FROM census) FROM models")
                  .getString(),
              "4 4 " + std::to_string(4 * 292) + " " + std::to_string(4 * 292) + " 4");
    d.exec("DROP INDEX refuse_fifth");
    ASSERT_EQ(test::run_modelcat("crawl -q --db " + db.string() + " " + (tmp / "store").string()).exit_code, 0);
    EXPECT_EQ(d.execAndGet("SELECT files_new || ' ' || files_unchanged FROM crawls ORDER BY crawl_id DESC LIMIT 1").getString(), "4 4");
    EXPECT_EQ(d.execAndGet("SELECT count(*) FROM tensors").getInt(), 8 * 292);
}

TEST(CrashSafety, TwoCrawlersShareOneDatabase) {
    test::TempDir tmp;
    test::copy_llama31_lineup(tmp / "a");
    test::copy_llama31_lineup(tmp / "b");
    const fs::path db = tmp / "catalog.db";
    pid_t p1 = spawn_crawl(db, {tmp / "a", tmp / "b"});
    pid_t p2 = spawn_crawl(db, {tmp / "b", tmp / "a"});
    EXPECT_EQ(wait_exit(p1), 0);
    EXPECT_EQ(wait_exit(p2), 0);
    SQLite::Database d(db.string());
    EXPECT_EQ(d.execAndGet("PRAGMA integrity_check").getString(), "ok");
    EXPECT_EQ(d.execAndGet("SELECT count(*) || ' ' || count(DISTINCT location) FROM files").getString(), "16 16");
    EXPECT_EQ(d.execAndGet("SELECT count(*) FROM tensors").getInt(), 16 * 292);
    EXPECT_EQ(d.execAndGet("SELECT count(*) FROM crawls WHERE finished_at IS NOT NULL").getInt(), 2);
}

}  // namespace
