// Reading commands never create or modify a catalogue: a missing one is an
// error, and they work on a published read-only copy (no -wal/-shm, read-only
// folder), on a file without write permission, and beside a running crawl.
// As root, the reading commands run as user nobody so permissions apply.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "kit/gguf_writer.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufValue;
namespace fs = std::filesystem;

namespace {

// Runs the rest of the command line as an unprivileged user when we are root.
std::string unprivileged() { return ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""; }

std::string bytes_of(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> listing(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

void write_model(const fs::path& path, uint32_t ffn_type) {
    kit::GgufWriter w;
    w.add_kv("general.architecture", GgufValue::str("llama"));
    w.add_kv("llama.block_count", GgufValue::u32(1));
    w.add_tensor("blk.0.attn_q.weight", {256, 4}, 12);  // Q4_K
    w.add_tensor("blk.0.attn_k.weight", {256, 4}, 12);
    w.add_tensor("blk.0.ffn_down.weight", {256, 4}, ffn_type);
    w.write(path);
}

class ReadOnly : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(store_);
        write_model(store_ / "alpha.gguf", 12);
        write_model(store_ / "beta.gguf", 14);  // Q6_K ffn_down: a promoted tensor
        test::CommandResult r = test::run_modelcat("crawl -q --db " + db_.string() + " " + store_.string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        ASSERT_FALSE(fs::exists(db_.string() + "-wal"));  // the crawl checkpointed on exit: the file is whole
    }
    // The reading commands, each expected to succeed on the catalogue at `db`.
    void expect_reads_work(const fs::path& db, const std::string& prefix) {
        test::CommandResult q = test::run_modelcat("query quant_summary --db " + db.string(), prefix);
        EXPECT_EQ(q.exit_code, 0) << q.err;
        EXPECT_NE(q.out.find("alpha"), std::string::npos) << q.out;
        EXPECT_NE(q.out.find("beta"), std::string::npos) << q.out;
        test::CommandResult p = test::run_modelcat("query policy -p model=beta --db " + db.string(), prefix);
        EXPECT_EQ(p.exit_code, 0) << p.err;
        EXPECT_NE(p.out.find("ffn_down.weight"), std::string::npos) << p.out;
        test::CommandResult d = test::run_modelcat("diff alpha beta --db " + db.string(), prefix);
        EXPECT_EQ(d.exit_code, 1) << d.err;  // they differ
        EXPECT_NE(d.out.find("blk.0.ffn_down.weight"), std::string::npos) << d.out;
    }
    // The catalogue alone (no -wal, no -shm) copied into `dir`, read-only, and `dir` given `dir_perms`.
    fs::path read_only_copy(const fs::path& dir, fs::perms dir_perms) {
        fs::create_directories(dir);
        fs::copy_file(db_, dir / "catalog.db");
        fs::permissions(dir / "catalog.db", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
        fs::permissions(dir, dir_perms);
        return dir / "catalog.db";
    }
    test::TempDir tmp_;
    fs::path store_ = tmp_ / "store", db_ = tmp_ / "catalog.db";
};

TEST_F(ReadOnly, AMissingCatalogueIsAnErrorAndIsNotCreated) {
    const fs::path typo = tmp_ / "typo.db";
    for (const std::string cmd : {"query quant_summary", "query policy -p model=1", "diff alpha beta", "migrate"}) {
        test::CommandResult r = test::run_modelcat(cmd + " --db " + typo.string());
        EXPECT_EQ(r.exit_code, 2) << cmd;
        EXPECT_EQ(r.err, "modelcat: no catalogue at " + typo.string() + " (run modelcat crawl first)\n") << cmd;
        EXPECT_FALSE(fs::exists(typo)) << cmd;
    }
    // schema, show and --list touch no database, not even the default one
    const fs::path cwd = tmp_ / "cwd";
    fs::create_directories(cwd);
    const std::string in_cwd = "cd " + cwd.string() + " && MODELCAT_DB= ";
    EXPECT_EQ(test::run_modelcat("schema", in_cwd).exit_code, 0);
    EXPECT_EQ(test::run_modelcat("show " + (store_ / "alpha.gguf").string(), in_cwd).exit_code, 0);
    EXPECT_EQ(test::run_modelcat("query --list", in_cwd).exit_code, 0);
    EXPECT_EQ(test::run_modelcat("query quant_summary", in_cwd).exit_code, 2);
    EXPECT_TRUE(listing(cwd).empty());
}

TEST_F(ReadOnly, APublishedCopyInAReadOnlyFolderWithoutWalOrShm) {
    const fs::path db = read_only_copy(tmp_ / "published", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                                               fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    const std::string before = bytes_of(db);
    expect_reads_work(db, unprivileged());
    // a crawl cannot write there: the permissions really apply to the reading commands
    EXPECT_NE(test::run_modelcat("crawl -q --db " + db.string() + " " + store_.string(), unprivileged()).exit_code, 0);
    EXPECT_EQ(listing(db.parent_path()), std::vector<std::string>{"catalog.db"});
    EXPECT_EQ(bytes_of(db), before);
    fs::permissions(db.parent_path(), fs::perms::owner_all);
}

TEST_F(ReadOnly, AFileWithoutWritePermission) {
    const fs::path db = read_only_copy(tmp_ / "shared", fs::perms::all);  // the folder is writable, the file is not
    const std::string before = bytes_of(db);
    expect_reads_work(db, unprivileged());
    EXPECT_EQ(bytes_of(db), before);
}

TEST_F(ReadOnly, BesideACrawlThatIsWriting) {
    SQLite::Database writer(db_.string(), SQLite::OPEN_READWRITE);
    writer.exec("BEGIN IMMEDIATE");  // holds the write lock, as a crawl storing a model does
    writer.exec("INSERT INTO crawls (started_at, inputs) VALUES ('2026-01-01T00:00:00Z', '[]')");
    writer.exec("DELETE FROM models WHERE name = 'alpha'");
    expect_reads_work(db_, "");  // sees the last commit, never waits for the lock
    test::CommandResult log = test::run_modelcat("query crawl_log --format csv --db " + db_.string());
    EXPECT_EQ(log.exit_code, 0) << log.err;
    EXPECT_EQ(std::count(log.out.begin(), log.out.end(), '\n'), 2) << log.out;  // header and the one committed crawl
    writer.exec("ROLLBACK");
}

}  // namespace
