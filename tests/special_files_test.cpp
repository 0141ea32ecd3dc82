// Special files never block and are never skipped without a word: named
// pipes, sockets, devices, dangling symlinks and symlink loops with a model
// suffix are errors with their reason. `timeout` guards against a hang; it
// asserts nothing about speed.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>

#include "kit/gguf_writer.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

constexpr int kTimedOut = 124;  // timeout(1)'s exit code
const std::string kHangGuard = "timeout 20 ";

void make_socket(const fs::path& p) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, p.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
    ::close(fd);  // the socket file stays
}

// A store holding one readable model and every kind of thing that is not a regular file.
void make_store(const fs::path& dir) {
    fs::create_directories(dir / "sub");
    kit::GgufWriter w;
    w.add_tensor("token_embd.weight", {8}, 0);
    w.write(dir / "good.gguf");
    ASSERT_EQ(::mkfifo((dir / "pipe.gguf").c_str(), 0644), 0);
    make_socket(dir / "sock.gguf");
    fs::create_symlink("/dev/zero", dir / "device.gguf");
    fs::create_symlink(dir / "blobs/deleted", dir / "dangling.safetensors");
    fs::create_symlink(dir / "loop-b.gguf", dir / "loop-a.gguf");
    fs::create_symlink(dir / "loop-a.gguf", dir / "loop-b.gguf");
    fs::create_directory_symlink("..", dir / "sub/up");  // a directory loop the walk must not follow
    fs::create_directory(dir / "folder.gguf");           // a folder named like a model: walked, not read
    w.write(dir / "latin1-caf\xe9.gguf");                  // a name that is not UTF-8
}

std::map<std::string, std::string> errors_by_file(const std::string& db) {
    SQLite::Database d(db);
    SQLite::Statement st(d, "SELECT location, message FROM errors");
    std::map<std::string, std::string> m;
    while (st.executeStep()) m[fs::path(st.getColumn(0).getString()).filename().string()] = st.getColumn(1).getString();
    return m;
}

TEST(SpecialFiles, AWalkedStoreRecordsEachKindAndReadsTheRest) {
    test::TempDir tmp;
    make_store(tmp / "store");
    std::string db = (tmp / "c.db").string();
    test::CommandResult r = test::run_modelcat("crawl --db " + db + " " + (tmp / "store").string(), kHangGuard);
    ASSERT_NE(r.exit_code, kTimedOut) << "the crawl hung";
    EXPECT_EQ(r.exit_code, 1) << r.err;
    std::map<std::string, std::string> want = {
        {"pipe.gguf", "a named pipe, not a regular file"},
        {"sock.gguf", "a socket, not a regular file"},
        {"device.gguf", "a character device, not a regular file"},
        {"dangling.safetensors", "dangling symlink: its target does not exist"},
        {"loop-a.gguf", "symlink loop (too many levels of symbolic links)"},
        {"loop-b.gguf", "symlink loop (too many levels of symbolic links)"},
        {"latin1-caf\\xe9.gguf",
         "path is not valid UTF-8 (shown with \\xNN); not read, as its location cannot be stored as text"},
    };
    EXPECT_EQ(errors_by_file(db), want) << r.err;
    SQLite::Database d(db);
    SQLite::Statement st(d, "SELECT group_concat(location) FROM files");
    ASSERT_TRUE(st.executeStep());
    EXPECT_EQ(st.getColumn(0).getString(), (tmp / "store/good.gguf").string());  // once, despite sub/up -> ..
}

TEST(SpecialFiles, NamedAsInputsTheyAreErrorsOnThatInput) {
    test::TempDir tmp;
    make_store(tmp / "store");
    ASSERT_EQ(::mkfifo((tmp / "store/inputs.txt").c_str(), 0644), 0);  // a list file that is a pipe
    std::string db = (tmp / "c.db").string();
    std::string args;
    for (const char* n : {"pipe.gguf", "sock.gguf", "device.gguf", "dangling.safetensors", "loop-a.gguf", "inputs.txt",
                          "good.gguf"})
        args += " " + (tmp / "store" / n).string();
    test::CommandResult r = test::run_modelcat("crawl --db " + db + args, kHangGuard);
    ASSERT_NE(r.exit_code, kTimedOut) << "the crawl hung";
    EXPECT_EQ(r.exit_code, 1) << r.err;
    std::map<std::string, std::string> errors = errors_by_file(db);
    EXPECT_EQ(errors.size(), 6u) << r.err;
    EXPECT_EQ(errors["inputs.txt"], "a named pipe, not a regular file");
    EXPECT_EQ(errors["device.gguf"], "a character device, not a regular file");
    EXPECT_NE(r.err.find("new: " + (tmp / "store/good.gguf").string()), std::string::npos) << r.err;

    for (const char* n : {"pipe.gguf", "folder.gguf"}) {
        test::CommandResult show = test::run_modelcat("show " + (tmp / "store" / n).string(), kHangGuard);
        ASSERT_NE(show.exit_code, kTimedOut) << "show hung on " << n;
        EXPECT_EQ(show.exit_code, 1);
        EXPECT_NE(show.err.find(std::string(n) + ": a "), std::string::npos) << show.err;
    }
}

// A checkpoint folder whose index names one shard (`shard_json`: its name as JSON string text).
void make_checkpoint(const fs::path& dir, const std::string& shard_json) {
    fs::create_directories(dir);
    std::ofstream(dir / "model.safetensors.index.json") << R"({"weight_map":{"a":")" << shard_json << R"("}})";
}

// Before: "header length 3475222254926655346 exceeds the cap of 100000000", the file's first 8 bytes as a number.
TEST(SpecialFiles, AShardLinkedToATextFileIsNamedSoWithoutNumbersFromItsBytes) {
    test::TempDir tmp;
    make_checkpoint(tmp / "ck", "model-00001-of-00001.safetensors");
    fs::create_symlink("/etc/passwd", tmp / "ck/model-00001-of-00001.safetensors");
    char first[8] = {};
    ASSERT_TRUE(std::ifstream("/etc/passwd", std::ios::binary).read(first, sizeof first));
    uint64_t as_length = 0;
    std::memcpy(&as_length, first, sizeof first);
    test::CommandResult r = test::run_modelcat("crawl --db " + (tmp / "c.db").string() + " " + (tmp / "ck").string(), kHangGuard);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("model-00001-of-00001.safetensors: offset 0: not a safetensors file: a text file"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(std::to_string(as_length)), std::string::npos) << r.err;
}

// Before: the message ended at the NUL ("...: /tmp/.../ck/model-00001"), the rest of the name lost.
TEST(SpecialFiles, AShardNameHoldingANulIsShownWholeAndEscaped) {
    test::TempDir tmp;
    make_checkpoint(tmp / "ck", "model-00001\\u0000-evil.safetensors");
    test::CommandResult r = test::run_modelcat("crawl --db " + (tmp / "c.db").string() + " " + (tmp / "ck").string(), kHangGuard);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(test::first_control_character(r.err), "");
    EXPECT_NE(r.err.find("shard name 'model-00001\\x00-evil.safetensors'"), std::string::npos) << r.err;
}

}  // namespace
