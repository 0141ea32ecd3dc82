#include "schema_history.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <SQLiteCpp/Statement.h>

#include "catalog/embedded_sql.hpp"
#include "catalog/schema.hpp"

namespace modelcat::test {

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> historic_files() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(fs::path(MODELCAT_TESTS_DIR) / "data" / "schema-history"))
        if (e.path().extension() == ".sql") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

void create_historic_schema(SQLite::Database& db, int version) {
    const std::vector<fs::path> files = historic_files();
    const int shipped = static_cast<int>(files.size());
    if (version < 0 || version > catalog::schema_version())
        throw std::runtime_error("no historic schema " + std::to_string(version));
    for (int i = 0; i < std::min(version, shipped); ++i) {
        std::ifstream in(files[static_cast<size_t>(i)]);
        std::stringstream sql;
        sql << in.rdbuf();
        db.exec(sql.str());
    }
    // versions since current.sql: the shipped files, then the migrations up to `version`, without
    // the old views (the migrator sets them aside too; a migration may drop a column they read)
    if (version > shipped) {
        std::vector<std::string> views;
        SQLite::Statement v(db, "SELECT name FROM sqlite_master WHERE type = 'view'");
        while (v.executeStep()) views.push_back(v.getColumn(0).getString());
        for (const auto& name : views) db.exec("DROP VIEW \"" + name + "\"");
    }
    for (const catalog::SqlText& m : catalog::schema_migrations()) {
        int v = std::stoi(std::string(m.name.substr(0, 3)));
        if (v > shipped && v <= version) db.exec(std::string(m.sql));
    }
    db.exec("PRAGMA user_version = " + std::to_string(version));
}

int historic_version(const std::string& stem) {
    const std::vector<fs::path> files = historic_files();
    for (size_t i = 0; i < files.size(); ++i)
        if (files[i].stem() == stem) return static_cast<int>(i + 1);
    throw std::runtime_error("no historic schema file " + stem);
}

}  // namespace modelcat::test
