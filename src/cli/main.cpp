// modelcat: catalogue GGUF and safetensors headers into SQLite. main() reads the
// environment once, dispatches to the one command given (cli/*_command.cpp) and
// reports what escaped it.
#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <vector>

#include "catalog/errors.hpp"
#include "cli/command.hpp"
#include "cli/settings.hpp"
#include "cli/terminal.hpp"
#include "cli/version.hpp"

using namespace modelcat;

namespace {

// A database error names the database; anything else is a usage or I/O problem. Both exit 2.
int run_guarded(const std::string& db, const std::function<int()>& command) {
    try {
        return command();
    } catch (const std::exception& e) {
        std::cerr << "modelcat: " << cli::terminal_safe(catalog::database_error_message(e, db).value_or(e.what())) << "\n";
    }
    return cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"modelcat: catalogue GGUF and safetensors headers into SQLite"};
    app.require_subcommand(1);
    const cli::Settings settings = cli::Settings::from_environment();
    std::string db = settings.db;
    const std::vector<cli::Command> commands = {
        cli::crawl_command(app, settings, db), cli::query_command(app, db),  cli::show_command(app),
        cli::diff_command(app, db),            cli::report_command(app, db), cli::audit_command(app, settings, db),
        cli::changes_command(app, db),         cli::schema_command(app),              cli::migrate_command(app, db),
    };
    app.set_version_flag("--version", cli::version_text, "print the version, git commit, schema, SQLite and libcurl versions");
    if (auto refused = cli::refuse_unknown_command(app, argc, argv)) return *refused;
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? cli::kExitOk : cli::kExitUsage;
    }
    for (const auto& c : commands)
        if (*c.parser) return run_guarded(db, c.run);
    return cli::kExitUsage;
}
