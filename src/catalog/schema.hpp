#pragma once
// The catalogue's schema: the version a database has, a new catalogue created
// from schema/current.sql, an older one migrated by schema/migrations/, and the
// reference rows every writable open writes.
#include <SQLiteCpp/Database.h>

#include <string>

namespace modelcat::catalog {

// The schema version this build creates and understands: the last migration's.
int schema_version();

// The SQLite library linked in ("3.40.1"), for --version.
std::string sqlite_library_version();

// A database's PRAGMA user_version: its schema version (0: nothing created yet).
int user_version(SQLite::Database& db);

// Throws when `version` is newer than this build's schema.
void check_schema_not_newer(const std::string& path, int version);

// Throws "PATH is not the catalogue this modelcat expects: view NAME differs from ..." unless each
// table, index, view and trigger this build's schema creates is there (its name in any case) and
// the same: a view's or trigger's SQL, a table's columns, an index's table and columns. What runs
// when a catalogue is read is then this build's own SQL; a user's own extra objects stay theirs.
void check_schema_is_ours(SQLite::Database& db, const std::string& path);

// In one transaction, with foreign keys off: creates the schema in a database of
// user_version 0, or migrates an older one to it, then writes the reference rows
// (file_type_names, tensor_name_map, ggml_types). Throws, changing nothing, when the
// schema is newer than this build's or a migration would break a foreign key.
void bring_to_current_schema(SQLite::Database& db);

}  // namespace modelcat::catalog
