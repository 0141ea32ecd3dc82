// `modelcat crwal`: the command nearest to what was typed, as git and cargo suggest it.
#include <algorithm>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/terminal.hpp"

namespace modelcat::cli {

namespace {

constexpr size_t kMaxSuggestionDistance = 2;  // "crwal" → crawl; "xyz" suggests nothing

// Edits (insert, delete, substitute, swap two neighbours) that turn a into b.
size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    std::iota(d[0].begin(), d[0].end(), size_t{0});
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

}  // namespace

std::optional<int> refuse_unknown_command(const CLI::App& app, int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return std::nullopt;  // an option: CLI11 answers
    const std::string typed = argv[1];
    std::string nearest;
    size_t best = kMaxSuggestionDistance + 1;
    for (const CLI::App* sub : app.get_subcommands({})) {
        if (sub->get_name() == typed) return std::nullopt;
        if (size_t d = edit_distance(typed.substr(0, 64), sub->get_name()); d < best) best = d, nearest = sub->get_name();
    }
    std::cerr << "modelcat: unknown command '" << terminal_safe(typed) << "'";
    if (!nearest.empty()) std::cerr << "; did you mean '" << nearest << "'?";
    std::cerr << " (see modelcat --help)\n";
    return kExitUsage;
}

}  // namespace modelcat::cli
