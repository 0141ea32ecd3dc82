// `modelcat schema`: the SQL that creates the catalogue.
#include <iostream>

#include "catalog/embedded_sql.hpp"
#include "cli/command.hpp"

namespace modelcat::cli {

namespace {

// schema/current.sql, then the reference rows a writable open adds (ggml_types' come from the binary).
int run_schema_command() {
    std::cout << catalog::current_schema_sql() << "\n-- schema/reference.sql\n" << catalog::reference_rows_sql();
    return kExitOk;
}

}  // namespace

Command schema_command(CLI::App& app) {
    return {app.add_subcommand("schema", "print the SQL that creates the catalogue"), [] { return run_schema_command(); }};
}

}  // namespace modelcat::cli
