#include "schema_history.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

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
    if (version < 0 || static_cast<size_t>(version) > files.size())
        throw std::runtime_error("no historic schema " + std::to_string(version));
    for (int i = 0; i < version; ++i) {
        std::ifstream in(files[static_cast<size_t>(i)]);
        std::stringstream sql;
        sql << in.rdbuf();
        db.exec(sql.str());
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
