#pragma once
// The database's own errors (SQLite's), told apart from a bad input or reference:
// the commands report them naming the database, and exit 2.
#include <exception>
#include <optional>
#include <string>

namespace modelcat::catalog {

bool is_database_error(const std::exception& e);

// "PATH is busy: ..." (another modelcat kept writing it past the busy timeout), a statement
// stopped at its deadline or heap limit (catalog/read_guard.hpp), or "database PATH: what";
// nullopt for an error that is not the database's.
std::optional<std::string> database_error_message(const std::exception& e, const std::string& db_path);

}  // namespace modelcat::catalog
