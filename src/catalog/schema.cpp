#include "catalog/schema.hpp"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "catalog/embedded_sql.hpp"
#include "model/file_types.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::catalog {

namespace {

// The version a migration brings a catalogue to: NNN of NNN_name.
int version_of(const SqlText& migration) { return std::stoi(std::string(migration.name.substr(0, 3))); }

struct View {
    std::string name, sql;
};

// The views (or the triggers, which go with the views they write through) of a catalogue.
std::vector<View> views_of(SQLite::Database& db, const char* type = "view") {
    SQLite::Statement st(db, "SELECT name, sql FROM sqlite_master WHERE type = ? ORDER BY rowid");
    st.bind(1, type);
    std::vector<View> out;
    while (st.executeStep()) out.push_back({st.getColumn(0).getString(), st.getColumn(1).getString()});
    return out;
}

std::string quoted(const std::string& name) {
    std::string out = "\"";
    for (char c : name) out += c == '"' ? "\"\"" : std::string(1, c);
    return out + "\"";
}

// The views stand aside while the tables change (renaming a column checks every view, and a view
// on one of ours would name a dropped one): all are dropped, then ours are created from
// current.sql and a user's own again from their stored text (one named like ours gives way to it);
// our triggers on our views (writing `tensors`) follow them.
void migrate(SQLite::Database& db, int from) {
    SQLite::Database fresh(":memory:", SQLite::OPEN_READWRITE);
    fresh.exec(std::string(current_schema_sql()));
    const std::vector<View> ours = views_of(fresh), present = views_of(db);
    for (const auto& v : present) db.exec("DROP VIEW " + quoted(v.name));
    for (const auto& m : schema_migrations())
        if (version_of(m) > from) db.exec(std::string(m.sql));
    for (const auto& v : ours) db.exec(v.sql);
    for (const auto& t : views_of(fresh, "trigger")) db.exec(t.sql);
    for (const auto& v : present)
        if (std::none_of(ours.begin(), ours.end(), [&](const View& o) { return o.name == v.name; })) db.exec(v.sql);
    db.exec("PRAGMA user_version = " + std::to_string(schema_version()));
    SQLite::Statement fk(db, "PRAGMA foreign_key_check");
    if (fk.executeStep())
        throw std::runtime_error("migrating " + db.getFilename() + " would leave a row of " + fk.getColumn(0).getString() +
                                 " without its " + fk.getColumn(2).getString() + " row: not migrated");
}

// What this build knows, written over what an older one wrote.
void write_reference_rows(SQLite::Database& db) {
    db.exec(std::string(reference_rows_sql()));
    SQLite::Statement ins(db, "INSERT OR REPLACE INTO ggml_types VALUES (?,?,?,?,?)");
    for (const auto& t : model::ggml_types()) {
        ins.bind(1, static_cast<int64_t>(t.id));
        ins.bind(2, std::string(t.name));
        ins.bind(3, static_cast<int64_t>(t.block_size));
        ins.bind(4, static_cast<int64_t>(t.type_size));
        ins.bind(5, t.bits_per_weight());
        ins.exec();
        ins.reset();
    }
    SQLite::Statement names(db, "INSERT OR REPLACE INTO file_type_names (file_type, name, removed) VALUES (?,?,?)");
    for (const auto& f : model::file_type_names()) {
        names.bind(1, static_cast<int64_t>(f.id));
        names.bind(2, std::string(f.name));
        names.bind(3, f.removed ? 1 : 0);
        names.exec();
        names.reset();
    }
}

// Every row of `st` as text, each value after a '|'.
std::string rows_text(SQLite::Statement& st) {
    std::string out;
    while (st.executeStep()) {
        for (int c = 0; c < st.getColumnCount(); ++c) out += "|" + st.getColumn(c).getString();
        out += "\n";
    }
    return out;
}

// What makes the object named `name` (in any case) what it is, as text: a view's or a trigger's
// SQL, which runs; a table's columns (a generated one computes), or a virtual table's SQL, which
// is never instantiated to ask; an index's table and columns.
std::string object_shape(SQLite::Database& db, const std::string& name) {
    SQLite::Statement object(db, "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name = ? COLLATE NOCASE");
    object.bind(1, name);
    if (!object.executeStep()) return "missing";
    const std::string type = object.getColumn(0).getString(), sql = object.getColumn(3).getString();
    const bool virtual_table = type == "table" && !sql.starts_with("CREATE TABLE");  // SQLite stores the keywords upper case
    if (type == "view" || type == "trigger" || virtual_table) return type + " " + sql;
    SQLite::Statement parts(db, type == "table" ? "SELECT * FROM pragma_table_xinfo(?)" : "SELECT * FROM pragma_index_xinfo(?)");
    parts.bind(1, object.getColumn(1).getString());
    return type + " on " + object.getColumn(2).getString() + "\n" + rows_text(parts);
}

}  // namespace

void check_schema_is_ours(SQLite::Database& db, const std::string& path) {
    SQLite::Database ours(":memory:", SQLite::OPEN_READWRITE);
    ours.exec(std::string(current_schema_sql()));
    const std::string not_ours = path + " is not the catalogue this modelcat expects: ";
    SQLite::Statement objects(ours, "SELECT type, name FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
    while (objects.executeStep()) {
        const std::string type = objects.getColumn(0).getString(), name = objects.getColumn(1).getString();
        if (object_shape(db, name) != object_shape(ours, name))
            throw std::runtime_error(not_ours + type + " " + name + " is not schema version " + std::to_string(schema_version()) +
                                     "'s (a catalogue from elsewhere? modelcat runs only its own views)");
    }
    // A user's own views and tables are kept; a trigger would run a stranger's SQL at each write of a crawl.
    SQLite::Statement triggers(db, "SELECT name FROM sqlite_schema WHERE type = 'trigger'");
    SQLite::Statement ours_named(ours, "SELECT 1 FROM sqlite_schema WHERE type = 'trigger' AND name = ? COLLATE NOCASE");
    while (triggers.executeStep()) {
        const std::string name = triggers.getColumn(0).getString();
        ours_named.reset();
        ours_named.bind(1, name);
        if (!ours_named.executeStep())
            throw std::runtime_error(not_ours + "trigger " + name + " is not modelcat's (a crawl writes through no trigger of a stranger's)");
    }
}

int schema_version() { return version_of(schema_migrations().back()); }

std::string sqlite_library_version() { return SQLite::getLibVersion(); }

int user_version(SQLite::Database& db) { return db.execAndGet("PRAGMA user_version").getInt(); }

void check_schema_not_newer(const std::string& path, int version) {
    if (version > schema_version())
        throw std::runtime_error("catalogue " + path + " has schema version " + std::to_string(version) +
                                 ", newer than this modelcat understands (" + std::to_string(schema_version()) + ")");
}

void bring_to_current_schema(SQLite::Database& db) {
    check_schema_not_newer(db.getFilename(), user_version(db));
    // Foreign keys stay off meanwhile (the caller turns them on), so that a migration may rebuild a
    // table (SQLite's documented procedure); migrate() checks that none is broken.
    db.exec("PRAGMA foreign_keys = OFF");
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    const int version = user_version(db);  // inside the write lock: another process may have migrated meanwhile
    check_schema_not_newer(db.getFilename(), version);
    if (version == 0) db.exec(std::string(current_schema_sql()));  // it sets user_version
    else if (version < schema_version()) migrate(db, version);
    write_reference_rows(db);
    tx.commit();
}

}  // namespace modelcat::catalog
