#include "support.hpp"

#include "kit/llama31.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace modelcat::test {

TempDir::TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("modelcat-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

namespace {
std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
}  // namespace

CommandResult run_command(const std::string& command) {
    TempDir tmp;
    std::string cmd = command + " >" + (tmp / "out").string() + " 2>" + (tmp / "err").string();
    int status = std::system(cmd.c_str());
    if (status == -1 || !WIFEXITED(status)) throw std::runtime_error("could not run: " + cmd);
    return {WEXITSTATUS(status), slurp(tmp / "out"), slurp(tmp / "err")};
}

void copy_llama31_lineup(const std::filesystem::path& dir) {
    static TempDir pristine;  // lives until the process ends
    static const bool written = (kit::write_llama31_lineup(pristine / "lineup"), true);
    (void)written;
    std::filesystem::create_directories(dir.parent_path());
    std::string cmd = "cp -r --sparse=always '" + (pristine / "lineup").string() + "' '" + dir.string() + "'";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("could not run: " + cmd);
}

std::filesystem::path executable_dir() { return std::filesystem::read_symlink("/proc/self/exe").parent_path(); }

// Each variant's tests/ folder sits beside its own binary: build/tests and build/modelcat, or
// build/asan/tests and build/asan/modelcat.
std::string modelcat_binary() { return (executable_dir().parent_path() / "modelcat").string(); }

// The test code is compiled once, uninstrumented; a suite linked with the sanitized libraries
// carries the ASan runtime, whose entry point is then a symbol of the process.
bool sanitized() {
    static const bool asan = dlsym(RTLD_DEFAULT, "__asan_init") != nullptr;
    return asan;
}

pid_t spawn_modelcat(const std::vector<std::string>& args, const std::filesystem::path& err) {
    std::vector<std::string> all = {modelcat_binary()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error("cannot start " + all[0]);
    return pid;
}

int wait_exit(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

CommandResult run_modelcat(const std::string& args, const std::string& shell_prefix) {
    return run_command(shell_prefix + modelcat_binary() + " " + args);
}

std::filesystem::path fixtures_dir() { return std::filesystem::path(MODELCAT_FIXTURES_DIR).lexically_normal(); }
std::filesystem::path llama_cpp_fixtures_dir() { return fixtures_dir().parent_path() / "llama-cpp"; }

std::string first_control_character(const std::string& s) {
    // The format characters that reorder or hide text, as UTF-8: U+061C, U+200B-U+200F, U+2028-U+202E,
    // U+2066-U+2069, U+FEFF.
    static const std::vector<std::string> kUnseen = {
        "\u061c", "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2028", "\u2029", "\u202a", "\u202b",
        "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\ufeff"};
    for (size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
        bool unseen = std::any_of(kUnseen.begin(), kUnseen.end(), [&](const std::string& u) { return s.compare(i, u.size(), u) == 0; });
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || (c == 0xc2 && next >= 0x80 && next <= 0x9f) || unseen)
            return "byte " + std::to_string(c) + " at " + std::to_string(i) + " in: " + s.substr(i > 40 ? i - 40 : 0, 80);
    }
    return "";
}

std::string sql_value(const std::filesystem::path& db, const std::string& sql) {
    SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement st(d, sql);
    if (!st.executeStep()) return "(no row)";
    return st.getColumn(0).isNull() ? "NULL" : st.getColumn(0).getString();
}

}  // namespace modelcat::test
