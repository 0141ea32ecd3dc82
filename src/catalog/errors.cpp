#include "catalog/errors.hpp"

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include "catalog/database.hpp"

namespace modelcat::catalog {

bool is_database_error(const std::exception& e) { return dynamic_cast<const SQLite::Exception*>(&e) != nullptr; }

std::optional<std::string> database_error_message(const std::exception& e, const std::string& db_path) {
    const auto* sql = dynamic_cast<const SQLite::Exception*>(&e);
    if (!sql) return std::nullopt;
    if (sql->getErrorCode() == SQLITE_BUSY)
        return db_path + " is busy: another modelcat has been writing it for " + std::to_string(kBusyTimeoutMs / 1000) +
               " s; try again later";
    if (sql->getErrorCode() == SQLITE_INTERRUPT)
        return "database " + db_path + ": a statement ran past its time limit (--query-timeout), and was stopped";
    if (sql->getErrorCode() == SQLITE_NOMEM && sqlite3_hard_heap_limit64(-1) > 0)
        return "database " + db_path + ": a statement needed more than SQLite's heap limit of " +
               std::to_string(sqlite3_hard_heap_limit64(-1) >> 20) + " MiB, and was stopped";
    return "database " + db_path + ": " + sql->what();
}

}  // namespace modelcat::catalog
