#pragma once
// The subcommands as main() dispatches them: each adds its options to the app
// and says what runs when it was the one given. One file per command
// (crawl_command.cpp ...); they parse options and print, the work is below cli/.
#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>

#include "cli/settings.hpp"

namespace modelcat::cli {

// The exit statuses every command shares.
inline constexpr int kExitOk = 0, kExitSomeFailed = 1, kExitUsage = 2;

struct Command {
    CLI::App* parser = nullptr;
    std::function<int()> run;
};

// In the order `modelcat --help` lists them; `db` is the catalogue path --db sets (for all).
Command crawl_command(CLI::App& app, const Settings& settings, std::string& db);
Command query_command(CLI::App& app, std::string& db);
Command show_command(CLI::App& app);
Command diff_command(CLI::App& app, std::string& db);
Command report_command(CLI::App& app, std::string& db);
Command audit_command(CLI::App& app, const Settings& settings, std::string& db);
Command changes_command(CLI::App& app, std::string& db);
Command schema_command(CLI::App& app);
Command migrate_command(CLI::App& app, std::string& db);

// `modelcat crwal`: exit 2, suggesting the nearest command; nullopt when argv[1] is a command or an option.
std::optional<int> refuse_unknown_command(const CLI::App& app, int argc, char** argv);

}  // namespace modelcat::cli
