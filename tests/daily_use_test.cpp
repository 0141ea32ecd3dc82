// A tool run every night and read every day, through the real binary: inputs are
// never swallowed, a vanished root is not a deletion, one writer at a time, and
// the conventions of the ecosystem (--version, exit codes, --help).
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "kit/gguf_writer.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Polls `done` every millisecond for up to 60 s; false when it never came true.
template <typename Done>
bool wait_until(Done done) {
    for (int i = 0; i < 60000; ++i) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

// A small, valid GGUF: one F32 tensor; `rows` sets its size so files differ.
void write_tiny(const fs::path& path, uint64_t rows = 8) {
    fs::create_directories(path.parent_path());
    kit::GgufWriter w;
    w.add_kv("general.name", kit::GgufValue::str(path.stem().string()));
    w.add_tensor("token_embd.weight", {rows}, kit::kF32);
    w.write(path, kit::DataMode::zeros);
}

class DailyUse : public ::testing::Test {
protected:
    // mirror/ holds `n` models, other/ one more.
    void make_mirror(int n = 3) {
        for (int i = 0; i < n; ++i) write_tiny(mirror_ / ("m" + std::to_string(i) + ".gguf"), 8 + i);
        write_tiny(tmp_ / "other" / "o.gguf");
    }
    test::CommandResult crawl(const std::string& args) { return test::run_modelcat("crawl --db " + db_.string() + " " + args); }
    std::string one(const std::string& sql) { return test::sql_value(db_, sql); }
    fs::path write_list(const std::string& name, const std::string& text) {
        std::ofstream(tmp_ / name, std::ios::binary) << text;
        return tmp_ / name;
    }
    test::TempDir tmp_;
    fs::path mirror_ = tmp_ / "mirror";
    fs::path db_ = tmp_ / "catalog.db";
};

TEST_F(DailyUse, AListOptionTakesOneFileAndTheFolderAfterItStaysAnInput) {
    make_mirror();
    fs::path list = write_list("inputs.txt", (tmp_ / "other" / "o.gguf").string() + "\n");
    test::CommandResult r = crawl("--list " + list.string() + " " + mirror_.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(one("SELECT count(*) FROM files WHERE status = 'ok'"), "4");
    // two lists, one value each, and an input between them
    fs::path second = write_list("second.list", (mirror_ / "m0.gguf").string() + "\n");
    write_tiny(tmp_ / "third" / "t.gguf");
    r = crawl("--list " + list.string() + " " + (tmp_ / "third").string() + " --list " + second.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(one("SELECT count(*) FROM files WHERE status = 'ok'"), "5");
}

TEST_F(DailyUse, AModelFileGivenAsAListIsRefusedUnread) {
    if (test::sanitized()) GTEST_SKIP() << "ASan reserves terabytes of address space; ulimit -v cannot apply";
    make_mirror(1);
    // a 4.9 GB GGUF named as a list: refused by its suffix, under a 1 GiB address-space cap
    fs::path big = tmp_ / "big-Q4_K_M.gguf";
    fs::copy_file(mirror_ / "m0.gguf", big);
    fs::resize_file(big, 4'920'739'232);
    test::CommandResult r = test::run_modelcat("crawl --db " + db_.string() + " --list " + big.string(), "ulimit -v 1048576;");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(big.string() + ": a model file, not a list of inputs"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("error:"), std::string::npos) << r.err;  // never parsed line by line
    EXPECT_FALSE(fs::exists(db_));                                  // refused before the catalogue is opened
    // the same file without a suffix: refused by its size
    fs::path nameless = tmp_ / "download";
    fs::rename(big, nameless);
    r = test::run_modelcat("crawl --db " + db_.string() + " --list " + nameless.string(), "ulimit -v 1048576;");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(nameless.string() + ": list file is 4920739232 bytes, over the 64 MiB"), std::string::npos) << r.err;
    // a small binary file: not UTF-8 text
    fs::path binary = write_list("inputs.lst", std::string("GGUF\x03\0\0\0\xff\xfe", 10));
    r = crawl("--list " + binary.string());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(binary.string() + ": not a text list of inputs: invalid UTF-8 at byte 8"), std::string::npos) << r.err;
    fs::path nul = write_list("nul.txt", std::string("a\0b\n", 4));
    r = crawl("--list " + nul.string());
    EXPECT_NE(r.err.find(nul.string() + ": not a text list of inputs: a NUL byte at byte 1"), std::string::npos) << r.err;
    // a .txt input that is not text is a failed input, its name given, the other inputs read
    r = crawl(nul.string() + " " + mirror_.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(nul.string() + ": not a text list of inputs"), std::string::npos) << r.err;
    EXPECT_EQ(one("SELECT count(*) FROM files WHERE status = 'ok'"), "1");
}

TEST_F(DailyUse, RepeatedParamsLeaveTheReportNamePositional) {
    make_mirror(1);
    ASSERT_EQ(crawl(mirror_.string()).exit_code, 0);
    test::CommandResult r = test::run_modelcat("query -p model=m0 policy --db " + db_.string() + " --format csv");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("majority_type"), std::string::npos) << r.out;
    r = test::run_modelcat("query -p model=m0 -p extra=1 policy --db " + db_.string());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.find("name a report"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("extra"), std::string::npos) << r.err;
}

// An NFS mount that failed leaves an empty folder (or none): nothing is gone, and the crawl says so.
TEST_F(DailyUse, AnEmptyOrMissingRootMarksNothingGone) {
    make_mirror(10);
    ASSERT_EQ(crawl(mirror_.string()).exit_code, 0);
    fs::rename(mirror_, tmp_ / "aside");
    fs::create_directory(mirror_);  // the empty mount point, named as a folder
    test::CommandResult r = crawl(mirror_.string() + "/");
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find(mirror_.string() + ": no files where 10 were catalogued (not mounted?)"), std::string::npos) << r.err;
    fs::remove(mirror_);  // no mount point at all
    r = crawl(mirror_.string());
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find(mirror_.string() + ": no files where 10 were catalogued (not mounted?)"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("error:"), std::string::npos) << r.err;
    EXPECT_EQ(one("SELECT count(*) FROM files WHERE status = 'gone'"), "0");
    EXPECT_EQ(one("SELECT count(*) FROM model_events"), "10");  // the first crawl's "new" only
    fs::rename(tmp_ / "aside", mirror_);  // remounted: nothing changed, nothing rewritten
    r = crawl(mirror_.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(one("SELECT files_new || ' ' || files_changed || ' ' || files_unchanged || ' ' || files_gone FROM crawls"
                  " ORDER BY crawl_id DESC"),
              "0 0 10 0");
    EXPECT_EQ(one("SELECT count(*) FROM model_events"), "10");
    // said so: --allow-gone marks them
    fs::remove_all(mirror_);
    fs::create_directory(mirror_);
    r = crawl("--allow-gone " + mirror_.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(one("SELECT count(*) FROM files WHERE status = 'gone'"), "10");
}

TEST_F(DailyUse, MaxGoneHoldsBackAPartialMount) {
    make_mirror(10);
    ASSERT_EQ(crawl(mirror_.string()).exit_code, 0);
    fs::remove(mirror_ / "m0.gguf");  // one of ten: within the default 10%
    test::CommandResult r = crawl(mirror_.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(one("SELECT count(*) FROM files WHERE status = 'gone'"), "1");
    for (int i : {1, 2, 3}) fs::remove(mirror_ / ("m" + std::to_string(i) + ".gguf"));  // three of the nine left
    r = crawl(mirror_.string());
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find(mirror_.string() + ": 3 of 9 catalogued files missing, over --max-gone 10%; none marked gone"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(one("SELECT count(*) FROM files WHERE status = 'gone'"), "1");
    r = crawl("--max-gone 2 " + mirror_.string());
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("over --max-gone 2;"), std::string::npos) << r.err;
    r = crawl("--max-gone 34% " + mirror_.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(one("SELECT count(*) FROM files WHERE status = 'gone'"), "4");
    EXPECT_EQ(crawl("--max-gone ten " + mirror_.string()).exit_code, 2);
}

TEST_F(DailyUse, TwoCrawlsAtOnceCountAsOne) {
    make_mirror(300);
    const std::vector<std::string> args = {"crawl", "--quiet", "--db", db_.string(), mirror_.string()};
    pid_t a = test::spawn_modelcat(args, tmp_ / "a.err"), b = test::spawn_modelcat(args, tmp_ / "b.err");
    EXPECT_EQ(test::wait_exit(a), 0) << read_text(tmp_ / "a.err");
    EXPECT_EQ(test::wait_exit(b), 0) << read_text(tmp_ / "b.err");
    EXPECT_EQ(one("SELECT group_concat(files_new || ' ' || files_changed || ' ' || files_unchanged, ' | ')"
                  " FROM (SELECT * FROM crawls ORDER BY files_new DESC)"),
              "300 0 0 | 0 0 300");
    EXPECT_EQ(one("SELECT group_concat(event || ':' || n) FROM (SELECT event, count(*) n FROM model_events GROUP BY event)"), "new:300");
}

TEST_F(DailyUse, ASecondCrawlWaitsForTheFirstAndSaysForWhom) {
    make_mirror(300);
    pid_t first = test::spawn_modelcat({"crawl", "--jobs", "1", "--db", db_.string(), mirror_.string()}, tmp_ / "first.err");
    ASSERT_TRUE(wait_until([&] { return read_text(tmp_ / "first.err").find("new: ") != std::string::npos; }));
    kill(first, SIGSTOP);  // mid-crawl, holding the catalogue
    test::CommandResult refused = crawl("--no-wait " + mirror_.string());
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("another crawl is writing " + db_.string() + " (pid " + std::to_string(first) + ", started 20"),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("not waiting (--no-wait)"), std::string::npos) << refused.err;
    test::CommandResult reader = test::run_modelcat("query quant_summary --format csv --db " + db_.string());  // readers never wait
    EXPECT_EQ(reader.exit_code, 0) << reader.err;
    pid_t second = test::spawn_modelcat({"crawl", "--quiet", "--db", db_.string(), mirror_.string()}, tmp_ / "second.err");
    EXPECT_TRUE(wait_until([&] { return read_text(tmp_ / "second.err").find("waiting for it to finish") != std::string::npos; }));
    EXPECT_NE(read_text(tmp_ / "second.err").find("(pid " + std::to_string(first) + ", started "), std::string::npos);
    kill(first, SIGCONT);
    EXPECT_EQ(test::wait_exit(first), 0) << read_text(tmp_ / "first.err");
    EXPECT_EQ(test::wait_exit(second), 0) << read_text(tmp_ / "second.err");
    EXPECT_EQ(one("SELECT group_concat(files_new || ' ' || files_unchanged, ' | ') FROM (SELECT * FROM crawls ORDER BY crawl_id)"),
              "300 0 | 0 300");
}

TEST_F(DailyUse, VersionNamesWhatABugReportNeeds) {
    test::CommandResult r = test::run_modelcat("--version");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("modelcat 0.", 0), 0u) << r.out;
    for (const std::string part : {" (git ", "\nschema ", "\nSQLite 3.", "\nlibcurl "}) EXPECT_NE(r.out.find(part), std::string::npos) << part;
}

// The plain binary allocates with mimalloc (README, "Dependencies": the crawl's writer thread spent a
// seventh of its time in glibc's malloc and free); mimalloc names itself when asked to be verbose.
TEST_F(DailyUse, ThePlainBinaryAllocatesWithMimalloc) {
    if (test::sanitized()) GTEST_SKIP() << "the sanitized binary keeps AddressSanitizer's allocator";
    test::CommandResult r = test::run_modelcat("--version", "MIMALLOC_VERBOSE=1 ");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("mimalloc: process init"), std::string::npos) << r.err;
}

TEST_F(DailyUse, AMistypedCommandSuggestsTheNearest) {
    test::CommandResult r = test::run_modelcat("crwal --db " + db_.string() + " x");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unknown command 'crwal'; did you mean 'crawl'?"), std::string::npos) << r.err;
    r = test::run_modelcat("qeury");
    EXPECT_NE(r.err.find("did you mean 'query'?"), std::string::npos) << r.err;
    r = test::run_modelcat("frobnicate");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unknown command 'frobnicate' (see modelcat --help)"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db_));
}

TEST_F(DailyUse, HtmlReportToStdout) {
    make_mirror(2);
    ASSERT_EQ(crawl(mirror_.string()).exit_code, 0);
    test::CommandResult r = test::run_modelcat("report --html - --db " + db_.string(), "cd " + tmp_.path().string() + ";");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u) << r.out.substr(0, 100);
    EXPECT_NE(r.out.find("</html>"), std::string::npos);
    EXPECT_FALSE(fs::exists(tmp_ / "-"));
}

TEST_F(DailyUse, DiffExitsLikeDiff) {
    write_tiny(tmp_ / "a.gguf", 8);
    write_tiny(tmp_ / "same.gguf", 8);
    write_tiny(tmp_ / "b.gguf", 16);
    test::CommandResult same = test::run_modelcat("diff " + (tmp_ / "a.gguf").string() + " " + (tmp_ / "same.gguf").string());
    EXPECT_EQ(same.exit_code, 0) << same.err;
    EXPECT_NE(same.err.find("identical"), std::string::npos) << same.err;
    test::CommandResult differ = test::run_modelcat("diff " + (tmp_ / "a.gguf").string() + " " + (tmp_ / "b.gguf").string());
    EXPECT_EQ(differ.exit_code, 1) << differ.err;
    EXPECT_NE(differ.out.find("token_embd.weight"), std::string::npos) << differ.out;
    std::ofstream(tmp_ / "broken.gguf") << "GGML";
    EXPECT_EQ(test::run_modelcat("diff " + (tmp_ / "a.gguf").string() + " " + (tmp_ / "broken.gguf").string()).exit_code, 2);
}

TEST_F(DailyUse, GeneratorsAnswerHelpWithoutWriting) {
    for (const std::string tool : {"modelcat-samples", "modelcat-zoo", "modelcat-audit-pair"}) {
        const std::string bin = std::string(MODELCAT_KIT_BIN_DIR) + "/" + tool;
        for (const std::string flag : {"--help", "-h"}) {
            test::CommandResult r = test::run_command("cd " + tmp_.path().string() + " && " + bin + " " + flag);
            EXPECT_EQ(r.exit_code, 0) << tool << " " << flag << ": " << r.err;
            EXPECT_EQ(r.out.rfind("usage: ", 0), 0u) << tool << ": " << r.out;
        }
        EXPECT_EQ(test::run_command("cd " + tmp_.path().string() + " && " + bin + " --bogus").exit_code, 2) << tool;
        EXPECT_TRUE(fs::is_empty(tmp_.path())) << tool << " wrote into " << tmp_.path();
    }
}

TEST_F(DailyUse, AMissingInputIsExit2AndAnEmptyFolderSaysSo) {
    test::CommandResult r = crawl((tmp_ / "nonexistent").string());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find((tmp_ / "nonexistent").string() + ": no such file or directory"), std::string::npos) << r.err;
    fs::create_directories(tmp_ / "empty" / "sub");
    std::ofstream(tmp_ / "empty" / "README.md") << "no models here\n";
    r = crawl((tmp_ / "empty").string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("no model found in the inputs"), std::string::npos) << r.err;
}

TEST_F(DailyUse, MessagesNameTheLikelyCause) {
    fs::create_directories(mirror_);
    std::ofstream(mirror_ / "page.gguf") << "<!DOCTYPE html><html><body>429 Too Many Requests</body></html>\n";
    std::ofstream(mirror_ / "pointer.gguf") << "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 4920739232\n";
    std::ofstream(mirror_ / "page.safetensors") << "<!DOCTYPE html><html><body>Not Found</body></html>\n";
    std::ofstream(mirror_ / "zeros.gguf").close();
    write_tiny(mirror_ / "whole.gguf", 1024);
    fs::copy_file(mirror_ / "whole.gguf", mirror_ / "cut.gguf");
    const uint64_t whole = fs::file_size(mirror_ / "whole.gguf");
    fs::resize_file(mirror_ / "cut.gguf", whole / 2);
    fs::resize_file(mirror_ / "zeros.gguf", 4096);
    test::CommandResult r = crawl(mirror_.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("page.gguf: offset 0: not a GGUF file: an HTML or XML page, probably a failed download"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("page.safetensors: offset 0: not a safetensors file: an HTML or XML page"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("pointer.gguf: offset 0: not a GGUF file: a Git LFS pointer file, not the model"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("zeros.gguf: offset 0: not a GGUF file: the file starts with zeros"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(": truncated: " + std::to_string(whole / 2) + " of " + std::to_string(whole) + " bytes; tensor 'token_embd.weight'"),
              std::string::npos)
        << r.err;
}

TEST_F(DailyUse, QuietIsSilentOnSuccess) {
    make_mirror(2);
    test::CommandResult r = crawl("--quiet " + mirror_.string());
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, "");
    std::ofstream(mirror_ / "bad.gguf") << "GGML";
    r = crawl("--quiet " + mirror_.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("bad.gguf: offset 0: not a GGUF file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("0 files ok (0 new, 0 changed), 2 unchanged, 0 gone, 1 failed"), std::string::npos) << r.err;
}

TEST_F(DailyUse, ADryRunLeavesNoCatalogueBehind) {
    make_mirror(2);
    test::CommandResult r = crawl("--dry-run " + mirror_.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("new\tm0\t"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("new\tm1\t"), std::string::npos) << r.out;
    for (const std::string suffix : {"", "-wal", "-shm", ".lock"}) EXPECT_FALSE(fs::exists(db_.string() + suffix)) << suffix;
}

}  // namespace
