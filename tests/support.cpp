#include "support.hpp"

#include "kit/llama31.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

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

std::string modelcat_binary() { return MODELCAT_BINARY; }

CommandResult run_modelcat(const std::string& args, const std::string& shell_prefix) {
    return run_command(shell_prefix + std::string(MODELCAT_BINARY) + " " + args);
}

std::filesystem::path fixtures_dir() { return std::filesystem::path(MODELCAT_FIXTURES_DIR).lexically_normal(); }
std::filesystem::path llama_cpp_fixtures_dir() { return fixtures_dir().parent_path() / "llama-cpp"; }

std::string first_control_character(const std::string& s) {
    for (size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || (c == 0xc2 && next >= 0x80 && next <= 0x9f))
            return "byte " + std::to_string(c) + " at " + std::to_string(i) + " in: " + s.substr(i > 40 ? i - 40 : 0, 80);
    }
    return "";
}

}  // namespace modelcat::test
