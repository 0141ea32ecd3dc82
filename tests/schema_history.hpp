#pragma once
// Catalogues as older modelcats created them, from the schema files they shipped
// (tests/data/schema-history/NNN_*.sql, file N bringing a catalogue to version N).
#include <SQLiteCpp/Database.h>

#include <string>

namespace modelcat::test {

// Applies the historic files 1..version to `db` (past the last shipped file, the migrations after it)
// and sets its user_version (0: leaves it empty).
void create_historic_schema(SQLite::Database& db, int version);

// The version the historic file `stem` (006_values) brought a catalogue to.
int historic_version(const std::string& stem);

}  // namespace modelcat::test
