#pragma once
// Shared test helpers: temporary directories, running the real binary.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace modelcat::test {

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

struct CommandResult {
    int exit_code;
    std::string out;  // stdout
    std::string err;  // stderr
};

// Runs a shell command, capturing stdout and stderr.
CommandResult run_command(const std::string& command);

// Runs the built modelcat binary with `args` (a shell-quoted string), after
// `shell_prefix` (e.g. "ulimit -v 1048576;") in the same shell.
CommandResult run_modelcat(const std::string& args, const std::string& shell_prefix = "");

std::string modelcat_binary();  // the built binary's path (of this suite's variant)
std::filesystem::path executable_dir();  // the suite's own folder: where it leaves artifacts (a screenshot)
bool sanitized();  // whether this suite and its binary run under AddressSanitizer

// The built binary with `args`, started in the background: stdout to /dev/null, stderr into `err`.
pid_t spawn_modelcat(const std::vector<std::string>& args, const std::filesystem::path& err = "/dev/null");
// Waits for `pid`: its exit code, or minus the signal that ended it.
int wait_exit(pid_t pid);

// The first column of `sql`'s first row in the catalogue `db`, opened read-only: "(no row)" when
// there is none, "NULL" for NULL, else the value as text.
std::string sql_value(const std::filesystem::path& db, const std::string& sql);

std::filesystem::path fixtures_dir();  // ../shared/fixtures/real
std::filesystem::path llama_cpp_fixtures_dir();  // ../shared/fixtures/llama-cpp: llama.cpp's own converter and quantizer output

// The 8-quant Llama 3.1 8B lineup, written once per test process and copied
// (holes kept: ~63 MB of headers, not 40 GB) into `dir` for a test to change.
void copy_llama31_lineup(const std::filesystem::path& dir);

// "" when s holds no control character that acts on a terminal (C0 but newline
// and tab, DEL, C1 as UTF-8) nor a format character that reorders or hides text
// (bidirectional, zero-width, separators, BOM); else the first one's byte, position and context.
std::string first_control_character(const std::string& s);

}  // namespace modelcat::test
