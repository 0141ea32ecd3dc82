#pragma once
// Opening a catalogue's connection (read-only for readers); the schema itself is
// catalog/schema.hpp. Used by the Writer and the Reader only.
#include <SQLiteCpp/Database.h>

#include <string>

namespace modelcat::catalog {

inline constexpr int kBusyTimeoutMs = 30'000;

// Every connection to a catalogue, a reader's or a writer's: no code reached through fts3_tokenizer
// or load_extension, SQLITE_DBCONFIG_DEFENSIVE, and the catalogue's views and triggers call no
// function with side effects (not TRUSTED_SCHEMA): a catalogue someone sends is input like any file.
void lock_down(SQLite::Database& db);

// SQLite counts every allocation under a global mutex unless told so before its
// first connection; a writer reads none of those counts. Call before opening one (a
// reader does not: its heap limit, catalog/read_guard.hpp, is enforced from the counts).
void skip_allocation_counts();

// The schema version of the existing catalogue at `path`, read without opening it for
// writing; throws "no catalogue at PATH" when there is none.
int catalogue_version(const std::string& path);

// Throws "no catalogue at PATH (run modelcat crawl first)" unless `path` is a file.
void require_catalogue_file(const std::string& path);

// The existing catalogue at `path`, read-only (SQLite's mode=ro): throws "no
// catalogue at PATH" when missing, and names `modelcat migrate` when its
// schema is older than this build's.
SQLite::Database open_database_read_only(const std::string& path);

// The same, whatever its schema version (the dry run copies an old one to migrate it in memory).
SQLite::Database open_any_version_read_only(const std::string& path);

}  // namespace modelcat::catalog
