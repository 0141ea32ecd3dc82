// `modelcat schema`: the SQL that creates the catalogue.
#include <iostream>

#include "catalog/embedded_sql.hpp"
#include "cli/command.hpp"

namespace modelcat::cli {

namespace {

int run_schema_command() {
    for (const auto& m : catalog::schema_migrations()) std::cout << "-- schema/" << m.name << ".sql\n" << m.sql << "\n";
    return kExitOk;
}

}  // namespace

Command schema_command(CLI::App& app) {
    return {app.add_subcommand("schema", "print the SQL that creates the catalogue"), [] { return run_schema_command(); }};
}

}  // namespace modelcat::cli
