#pragma once
// Shared test helpers: temporary directories, running the real binary.
#include <filesystem>
#include <string>

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

// Runs the built modelcat binary with `args` (a shell-quoted string), after
// `shell_prefix` (e.g. "ulimit -v 1048576;") in the same shell.
CommandResult run_modelcat(const std::string& args, const std::string& shell_prefix = "");

std::filesystem::path fixtures_dir();  // ../shared/fixtures/real

// "" when s holds no control character that acts on a terminal (C0 but newline
// and tab, DEL, C1 as UTF-8); else the first one's byte, position and context.
std::string first_control_character(const std::string& s);

}  // namespace modelcat::test
