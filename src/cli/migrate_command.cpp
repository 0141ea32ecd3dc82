// `modelcat migrate`: brings an existing catalogue to this build's schema; the
// crawl does the same on its own.
#include <iostream>

#include "catalog/writer.hpp"
#include "cli/command.hpp"

namespace modelcat::cli {

namespace {

int run_migrate(const std::string& db_path) {
    const int before = catalog::catalogue_version(db_path);
    catalog::Writer cat = catalog::Writer::open_for_writing(db_path);
    const int64_t reread = cat.files_to_reread();
    std::cout << db_path << ": schema version " << before << " -> " << catalog::schema_version();
    if (before == catalog::schema_version()) std::cout << " (already current)";
    std::cout << "; " << reread << " files to re-read on the next crawl\n";
    return kExitOk;
}

}  // namespace

Command migrate_command(CLI::App& app, std::string& db) {
    auto* cmd = app.add_subcommand("migrate", "upgrade an existing catalogue to this modelcat's schema (crawl does it too)");
    cmd->add_option("--db", db, "catalogue database");
    return {cmd, [&db] { return run_migrate(db); }};
}

}  // namespace modelcat::cli
