#include "catalog/database.hpp"

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "catalog/schema.hpp"

namespace modelcat::catalog {

namespace {

// A file: URI for `path`, with the characters URIs reserve escaped.
std::string file_uri(const std::string& path, const char* query) {
    std::string uri = "file:";
    for (char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
            uri += buf;
        } else {
            uri += c;
        }
    }
    return uri + "?" + query;
}

// mode=ro reads a live catalogue, -wal included. It fails when the -shm cannot
// be created (a read-only folder): then, if there is no -wal either, nothing
// can be writing it, and immutable=1 reads the published file as it is.
SQLite::Database open_published_or_live(const std::string& path) {
    SQLite::Database live(file_uri(path, "mode=ro"), SQLite::OPEN_READONLY | SQLite::OPEN_URI, kBusyTimeoutMs);
    try {
        lock_down(live);
        live.execAndGet("PRAGMA schema_version");
        return live;
    } catch (const SQLite::Exception& e) {
        std::error_code ec;
        const bool cannot_open_shm = e.getErrorCode() == SQLITE_READONLY || e.getErrorCode() == SQLITE_CANTOPEN;
        if (!cannot_open_shm || std::filesystem::exists(path + "-wal", ec)) throw;
    }
    SQLite::Database published(file_uri(path, "immutable=1"), SQLite::OPEN_READONLY | SQLite::OPEN_URI, kBusyTimeoutMs);
    lock_down(published);
    return published;
}

}  // namespace

void lock_down(SQLite::Database& db) {
    sqlite3* h = db.getHandle();
    sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, nullptr);
    sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
}

void skip_allocation_counts() {
    static const int once = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);  // refused, harmlessly, once SQLite has started
    (void)once;
}

int catalogue_version(const std::string& path) {
    require_catalogue_file(path);
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    return user_version(db);
}

void require_catalogue_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw std::runtime_error("no catalogue at " + path + " (run modelcat crawl first)");
}

SQLite::Database open_any_version_read_only(const std::string& path) {
    require_catalogue_file(path);  // SQLite keeps counting allocations: a reader's heap limit needs the counts
    return open_published_or_live(path);
}

SQLite::Database open_database_read_only(const std::string& path) {
    SQLite::Database db = open_any_version_read_only(path);
    const int version = user_version(db);
    if (version == 0 && db.execAndGet("SELECT count(*) FROM sqlite_master").getInt() == 0) {
        // a first crawl turns WAL on, then writes the schema in one transaction: until it commits,
        // a reader sees no table beside the crawl's log
        std::error_code ec;
        if (std::filesystem::exists(path + "-wal", ec))
            throw std::runtime_error(path + " is being created by a crawl; try again in a moment");
        throw std::runtime_error(path + " is an empty database, not a modelcat catalogue (run modelcat crawl first)");
    }
    check_schema_not_newer(path, version);
    if (version < schema_version())
        throw std::runtime_error("catalogue " + path + " has schema version " + std::to_string(version) +
                                 "; this modelcat reads version " + std::to_string(schema_version()) +
                                 ": run `modelcat migrate --db " + path + "` (or a crawl) to upgrade it");
    return db;
}

}  // namespace modelcat::catalog
