#pragma once
// `modelcat --version`, apart from command.hpp so that its file, rebuilt at every commit, compiles without CLI11.
#include <string>

namespace modelcat::cli {

// What `modelcat --version` prints (cli/version.cpp).
std::string version_text();

}  // namespace modelcat::cli
