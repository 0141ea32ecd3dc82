// A new catalogue is schema/current.sql in one step; a catalogue written at every earlier schema
// version (0-13, by the schema files those versions shipped) migrates in place to exactly the
// schema a new one has, keeping its rows and its users' views. The files whose columns the crawl
// computes are marked, and after the next crawl every derived row equals a fresh crawl's; values
// SQLite's affinity once changed are read again exactly; reading commands refuse an old schema.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>

#include "catalog/embedded_sql.hpp"
#include "catalog/writer.hpp"
#include "model/file_types.hpp"
#include "model/ggml_types.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/kinds.hpp"
#include "kit/zoo.hpp"
#include "schema_history.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufValue;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> column_names(SQLite::Database& db, const std::string& schema, const std::string& table) {
    SQLite::Statement st(db, "SELECT name FROM pragma_table_info(?, ?)");
    st.bind(1, table);
    st.bind(2, schema);
    std::vector<std::string> out;
    while (st.executeStep()) out.push_back(st.getColumn(0).getString());
    return out;
}

std::string quoted(const std::string& name) { return "\"" + name + "\""; }

// What a current column held under an older name (schema 11 renamed files.kv_count).
std::string current_name(const std::string& table, const std::string& column) {
    return table == "files" && column == "kv_count" ? "declared_kv_count" : column;
}

// A column a later schema dropped (the memory schema: models' KV cache estimate, for memory_terms).
bool dropped(const std::string& table, const std::string& column) {
    return table == "models" && ((column.starts_with("kv_") && column.ends_with("_per_1k")) || column == "kv_swa_layers" ||
                                 column == "sliding_window");
}

// The current column an old one is copied from, or NULL when it was dropped.
std::string source_column(const std::string& table, const std::string& column) {
    return dropped(table, column) ? "NULL" : quoted(current_name(table, column));
}

// A catalogue as a modelcat of schema `version` left it: the schema files of that version,
// holding the rows of `rows_from` (a current catalogue) in the columns that version had, stored
// through that version's column affinities.
void write_old_catalogue(const fs::path& path, int version, const fs::path& rows_from) {
    SQLite::Database db(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA journal_mode = WAL");
    test::create_historic_schema(db, version);
    db.exec("ATTACH '" + rows_from.string() + "' AS src");
    std::vector<std::string> tables;
    SQLite::Statement t(db, "SELECT name FROM main.sqlite_master WHERE type = 'table' ORDER BY rowid");
    while (t.executeStep()) tables.push_back(t.getColumn(0).getString());
    for (const auto& table : tables) {
        std::string cols, from;
        for (const auto& c : column_names(db, "main", table)) {
            cols += (cols.empty() ? "" : ",") + quoted(c);
            from += (from.empty() ? "" : ",") + source_column(table, c);
        }
        db.exec("INSERT OR IGNORE INTO main." + quoted(table) + " (" + cols + ") SELECT " + from + " FROM src." + quoted(table));
    }
}

std::string text(const SQLite::Column& c) { return c.isNull() ? "NULL" : c.getString(); }

// Every row of `sql`, one line each ("|" between columns), `arg` bound to a ? when given.
std::string rows_text(SQLite::Database& db, const std::string& sql, const std::optional<std::string>& arg = {}) {
    SQLite::Statement st(db, sql);
    if (arg) st.bind(1, *arg);
    std::string out;
    while (st.executeStep()) {
        out += " ";
        for (int i = 0; i < st.getColumnCount(); ++i) out += (i ? "|" : "") + text(st.getColumn(i));
        out += "\n";
    }
    return out;
}

std::string rows_text(const fs::path& db, const std::string& sql) {
    SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
    return rows_text(d, sql);
}

// A definition without its comments and layout: what SQLite keeps beyond the pragmas (CHECK
// constraints, WITHOUT ROWID, a partial index's WHERE), comparable however it was written.
std::string definition(const SQLite::Column& sql) {
    if (sql.isNull()) return "NULL";  // the index SQLite makes for a UNIQUE or PRIMARY KEY
    std::string out, s = sql.getString();
    for (size_t i = 0; i < s.size(); ++i) {
        if (s.compare(i, 2, "--") == 0) {
            i = s.find('\n', i);
            if (i == std::string::npos) break;
        }
        const char c = std::isspace(static_cast<unsigned char>(s[i])) ? ' ' : s[i];
        const bool tight = !out.empty() && (out.back() == '(' || out.back() == ',' || out.back() == ' ');
        if (c == ' ' && tight) continue;
        if ((c == ')' || c == ',' || c == '(') && !out.empty() && out.back() == ' ') out.pop_back();
        out += c;
    }
    return out;
}

// Everything that makes two schemas the same, as text: user_version; per table its definition,
// columns (name, declared type, not-null, default, primary key, in order) and foreign keys; per
// index its table, definition, uniqueness, origin, partial flag and columns; views and triggers
// by name and SQL text.
std::string schema_description(const fs::path& path) {
    SQLite::Database db(path.string(), SQLite::OPEN_READONLY);
    std::string out = "user_version" + rows_text(db, "PRAGMA user_version");
    SQLite::Statement objects(db, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name");
    while (objects.executeStep()) {
        const std::string type = objects.getColumn(0).getString(), name = objects.getColumn(1).getString();
        if (type == "view" || type == "trigger") {
            out += type + " " + name + ": " + objects.getColumn(3).getString() + "\n";
            continue;
        }
        out += type + " " + name + " on " + objects.getColumn(2).getString() + ": " + definition(objects.getColumn(3)) + "\n";
        if (type == "table") {
            out += rows_text(db, "SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", name);
            out += rows_text(db, "SELECT id, seq, \"table\", \"from\", \"to\", on_update, on_delete, match"
                                 " FROM pragma_foreign_key_list(?)", name);
        } else if (type == "index") {
            out += rows_text(db, "SELECT \"unique\", origin, partial FROM pragma_index_list((SELECT tbl_name FROM"
                                 " sqlite_master WHERE name = ?1)) WHERE name = ?1", name);
            out += rows_text(db, "SELECT seqno, cid, name, \"desc\", coll, key FROM pragma_index_xinfo(?)", name);
        }
    }
    return out;
}

// Rows of every table of `before` that `after` lacks (columns as `before` has them; files.reread
// left out, which migrating sets).
std::string lost_rows(const fs::path& before, const fs::path& after) {
    SQLite::Database db(after.string(), SQLite::OPEN_READONLY);
    db.exec("ATTACH '" + before.string() + "' AS before");
    std::string out;
    SQLite::Statement tables(db, "SELECT name FROM before.sqlite_master WHERE type = 'table'");
    while (tables.executeStep()) {
        const std::string table = tables.getColumn(0).getString();
        std::string old_cols, new_cols;
        for (const auto& c : column_names(db, "before", table)) {
            if ((table == "files" && c == "reread") || dropped(table, c)) continue;
            old_cols += (old_cols.empty() ? "" : ",") + quoted(c);
            new_cols += (new_cols.empty() ? "" : ",") + quoted(current_name(table, c));
        }
        const std::string lost = rows_text(db, "SELECT " + old_cols + " FROM before." + quoted(table) + " EXCEPT SELECT " +
                                                   new_cols + " FROM main." + quoted(table));
        if (!lost.empty()) out += table + ":\n" + lost;
    }
    return out;
}

// What the crawl derives from the headers, comparable across catalogues: models by location, not
// by the ids a crawl hands out.
std::string derived_rows(const fs::path& db) {
    SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
    std::string model_cols;
    for (const auto& c : column_names(d, "main", "models"))
        if (c != "model_id" && c != "crawl_id" && c != "updated_at") model_cols += (model_cols.empty() ? "" : ",") + c;
    auto but_model_id = [&](const std::string& table, const std::string& alias) {
        std::string cols;
        for (const auto& c : column_names(d, "main", table))
            if (c != "model_id") cols += ", " + alias + "." + c;
        return cols;
    };
    return "models\n" + rows_text(d, "SELECT " + model_cols + " FROM models ORDER BY location") +
           "census\n" + rows_text(d, "SELECT m.location, c.type_id, c.type_name, c.tensors, c.params, c.bytes, c.bits_per_weight"
                                     " FROM census c JOIN models m USING (model_id) ORDER BY 1, 3") +
           "policy_layers\n" + rows_text(d, "SELECT m.location, p.tensor_kind, p.type_id, p.type_name, p.tensors, p.layers"
                                            " FROM policy_layers p JOIN models m USING (model_id) ORDER BY 1, 2, 4") +
           "recipes\n" + rows_text(d, "SELECT m.location, r.recipe, r.quantized_as, r.overrides, r.matching, r.tensors,"
                                      " r.revision, r.imatrix, r.differences, r.why, r.note"
                                      " FROM recipes r JOIN models m USING (model_id) ORDER BY 1") +
           "memory_terms\n" + rows_text(d, "SELECT m.location" + but_model_id("memory_terms", "t") +
                                            " FROM memory_terms t JOIN models m USING (model_id) ORDER BY 1") +
           "memory_caches\n" + rows_text(d, "SELECT m.location" + but_model_id("memory_caches", "c") +
                                             " FROM memory_caches c JOIN models m USING (model_id) ORDER BY 1, c.cache") +
           "files\n" + rows_text(d, "SELECT location, role, shard, format, version, size, header_bytes, data_start, alignment,"
                                    " declared_kv_count, tensor_count, header_hash, status, reread, ggml_refusals,"
                                    " tensor_index_hash, metadata_hash FROM files ORDER BY location") +
           "metadata\n" + rows_text(d, "SELECT f.location, md.key, md.value_type, typeof(md.value), md.value, md.array_length,"
                                       " md.array_hash, md.offset FROM metadata md JOIN files f USING (file_id) ORDER BY 1, 2") +
           "tensors\n" + rows_text(d, "SELECT f.location, t.name, t.kind, t.type_name, t.bytes FROM tensors t"
                                      " JOIN files f USING (file_id) ORDER BY 1, 2");
}

std::string read_source_file(const std::string& relative) {
    std::ifstream in(fs::path(MODELCAT_SOURCE_DIR) / relative);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const int kValuesVersion = test::historic_version("006_values");  // the first that stored values exactly
const int kKindVersion = test::historic_version("012_stores");    // the first with models.kind

// The version the bundled migration NNN_<stem> brings a catalogue to (memory: the first with memory_terms).
int migration_version(std::string_view stem) {
    for (const catalog::SqlText& m : catalog::schema_migrations())
        if (m.name.substr(4) == stem) return std::stoi(std::string(m.name.substr(0, 3)));
    ADD_FAILURE() << "no migration " << stem;
    return 0;
}

// The latest version a migration marks every file to be read again for (rows the crawl derives).
int last_reread_version() {
    int version = 0;
    for (const catalog::SqlText& m : catalog::schema_migrations())
        if (m.sql.find("SET reread = 1") != std::string_view::npos) version = std::stoi(std::string(m.name.substr(0, 3)));
    return version;
}

class OldCatalogue : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(store_);
        kit::GgufWriter damaged;  // values the NUMERIC affinity changed
        damaged.add_kv("general.architecture", GgufValue::str("llama"));
        damaged.add_kv("general.name", GgufValue::str("0123"));
        damaged.add_kv("general.version", GgufValue::str("3.10"));
        damaged.add_kv("llama.rope.freq_base", GgufValue::f32(500000.0f));
        damaged.add_tensor("token_embd.weight", {32, 4}, 0);
        damaged.write(damaged_);
        kit::GgufWriter clean;  // values every schema stored exactly
        clean.add_kv("general.architecture", GgufValue::str("llama"));
        clean.add_kv("general.name", GgufValue::str("clean model"));
        clean.add_kv("llama.block_count", GgufValue::u32(2));
        clean.add_kv("llama.rope.freq_base", GgufValue::f32(0.5f));
        clean.add_tensor("token_embd.weight", {32, 4}, 0);
        clean.add_tensor("blk.0.attn_q.weight", {32, 32}, 8);
        clean.add_tensor("blk.1.attn_q.weight", {32, 32}, 8);
        clean.write(clean_);
        test::CommandResult r = test::run_modelcat("crawl -q --db " + current_.string() + " " + store_.string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        fresh_schema_ = schema_description(current_);
    }
    test::TempDir tmp_;
    fs::path store_ = tmp_ / "store", damaged_ = store_ / "damaged.gguf", clean_ = store_ / "clean.gguf";
    fs::path current_ = tmp_ / "current.db";
    std::string fresh_schema_;
};

TEST_F(OldCatalogue, EveryEarlierVersionMigratesToTheFreshSchemaKeepingItsRows) {
    for (int v = 0; v < catalog::schema_version(); ++v) {
        SCOPED_TRACE("from user_version " + std::to_string(v));
        const bool has_rows = v > 0, altered = has_rows && v < kValuesVersion;  // "0123" stored as 123
        const bool reread = has_rows && v < last_reread_version();  // a column or table the crawl computes is missing
        const bool no_kind = has_rows && v < kKindVersion;
        const fs::path db = tmp_ / ("v" + std::to_string(v) + ".db"), before = tmp_ / ("v" + std::to_string(v) + "-before.db");
        write_old_catalogue(db, v, current_);
        fs::copy_file(db, before);
        // a user's view on one of ours, which migrating sets aside and brings back (schema 11 renames a column under it)
        SQLite::Database(db.string(), SQLite::OPEN_READWRITE).exec("CREATE VIEW my_quants AS SELECT name FROM quant_summary");
        if (has_rows) {
            EXPECT_EQ(test::sql_value(db, "SELECT count(*) FROM metadata WHERE key = 'general.name' AND typeof(value) = 'integer'"),
                      altered ? "1" : "0");
        }
        test::CommandResult r = test::run_modelcat("migrate --db " + db.string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(r.out, db.string() + ": schema version " + std::to_string(v) + " -> " + std::to_string(catalog::schema_version()) +
                             "; " + (reread ? "2" : "0") + " files to re-read on the next crawl\n");
        EXPECT_EQ(test::sql_value(db, "SELECT group_concat(name) FROM (SELECT name FROM my_quants ORDER BY name)"),
                  has_rows ? "clean,damaged" : "NULL");
        SQLite::Database(db.string(), SQLite::OPEN_READWRITE).exec("DROP VIEW my_quants");
        EXPECT_EQ(schema_description(db), fresh_schema_);
        EXPECT_EQ(test::sql_value(db, "PRAGMA integrity_check"), "ok");
        EXPECT_EQ(test::sql_value(db, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
        EXPECT_EQ(lost_rows(before, db), "");
        EXPECT_EQ(test::sql_value(db, "SELECT group_concat(location) FROM (SELECT location FROM files WHERE reread ORDER BY location)"),
                  reread ? clean_.string() + "," + damaged_.string() : "NULL");
        // what the crawl computes stays NULL until it reads the files again
        EXPECT_EQ(test::sql_value(db, "SELECT count(*) FROM models WHERE kind IS NULL"), no_kind ? "2" : "0");
        EXPECT_EQ(test::sql_value(db, "SELECT count(*) FROM recipes"), has_rows && v >= migration_version("recipes") ? "2" : "0");
        EXPECT_EQ(test::sql_value(db, "SELECT count(*) FROM memory_terms"), has_rows && v >= migration_version("memory") ? "2" : "0");
        test::CommandResult crawl = test::run_modelcat("crawl -q --db " + db.string() + " " + store_.string());
        ASSERT_EQ(crawl.exit_code, 0) << crawl.err;
        EXPECT_EQ(derived_rows(db), derived_rows(current_));
        test::CommandResult again = test::run_modelcat("migrate --db " + db.string());
        EXPECT_EQ(again.out, db.string() + ": schema version " + std::to_string(catalog::schema_version()) + " -> " +
                                 std::to_string(catalog::schema_version()) + " (already current); 0 files to re-read on the next crawl\n");
    }
}

TEST_F(OldCatalogue, ItsFilesAreReadAgainByTheNextCrawlAndAlteredValuesComeBackExact) {
    const int old = kValuesVersion - 1;
    const fs::path db = tmp_ / "old.db";
    write_old_catalogue(db, old, current_);
    SQLite::Database(db.string(), SQLite::OPEN_READWRITE)
        .exec("CREATE VIEW my_names AS SELECT f.location, m.value FROM metadata m JOIN files f USING (file_id)"
              " WHERE m.key = 'general.name'");  // a user's own view on metadata survives the rebuild
    test::CommandResult dry = test::run_modelcat("crawl --dry-run --db " + db.string() + " " + store_.string());
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    const std::string lines = "\n" + dry.out;  // verdicts at line starts: "unchanged" ends in "changed"
    EXPECT_NE(lines.find("\nchanged\tdamaged\t" + damaged_.string()), std::string::npos) << dry.out;
    EXPECT_NE(lines.find("\nchanged\tclean\t" + clean_.string()), std::string::npos) << dry.out;
    test::CommandResult r = test::run_modelcat("crawl -q --db " + db.string() + " " + store_.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::sql_value(db, "SELECT files_changed || ' ' || files_unchanged FROM crawls ORDER BY crawl_id DESC LIMIT 1"), "2 0");
    EXPECT_EQ(test::sql_value(db, "SELECT typeof(value) || ' ' || value FROM metadata WHERE key = 'general.name' AND file_id ="
                      " (SELECT file_id FROM files WHERE location = '" + damaged_.string() + "')"),
              "text 0123");
    EXPECT_EQ(test::sql_value(db, "SELECT typeof(value) FROM metadata WHERE key = 'llama.rope.freq_base' AND file_id ="
                      " (SELECT file_id FROM files WHERE location = '" + damaged_.string() + "')"),
              "real");
    EXPECT_EQ(test::sql_value(db, "SELECT count(*) FROM files WHERE reread"), "0");
    EXPECT_EQ(test::sql_value(db, "SELECT value FROM my_names WHERE location = '" + damaged_.string() + "'"), "0123");
}

TEST_F(OldCatalogue, WhereNothingIsMissingTheNextCrawlReadsNothing) {
    const fs::path db = tmp_ / "old.db";
    // a catalogue that has every derived row: at that version, or a current one when it is the latest
    if (last_reread_version() < catalog::schema_version()) write_old_catalogue(db, last_reread_version(), current_);
    else fs::copy_file(current_, db);
    ASSERT_EQ(test::run_modelcat("migrate --db " + db.string()).exit_code, 0);
    test::CommandResult dry = test::run_modelcat("crawl --dry-run -v --db " + db.string() + " " + store_.string());  // -v: unchanged too
    const std::string lines = "\n" + dry.out;
    EXPECT_NE(lines.find("\nunchanged\tdamaged\t" + damaged_.string()), std::string::npos) << dry.out;
    EXPECT_NE(lines.find("\nunchanged\tclean\t" + clean_.string()), std::string::npos) << dry.out;
    ASSERT_EQ(test::run_modelcat("crawl -q --db " + db.string() + " " + store_.string()).exit_code, 0);
    EXPECT_EQ(test::sql_value(db, "SELECT files_changed || ' ' || files_unchanged FROM crawls ORDER BY crawl_id DESC LIMIT 1"), "0 2");
}

TEST_F(OldCatalogue, ReadingCommandsNameMigrateAndLeaveItAlone) {
    const int old = kValuesVersion - 1;  // before the values migration, whose column shows whether it ran
    const fs::path db = tmp_ / "old.db";
    write_old_catalogue(db, old, current_);
    for (const std::string cmd : {"query quant_summary", "diff 1 2"}) {
        test::CommandResult r = test::run_modelcat(cmd + " --db " + db.string());
        EXPECT_EQ(r.exit_code, 2) << cmd;
        EXPECT_NE(r.err.find("has schema version " + std::to_string(old) + "; this modelcat reads version " +
                             std::to_string(catalog::schema_version()) + ": run `modelcat migrate --db " + db.string() + "`"),
                  std::string::npos)
            << r.err;
    }
    EXPECT_EQ(test::sql_value(db, "PRAGMA user_version"), std::to_string(old));
    EXPECT_EQ(test::sql_value(db, "SELECT count(*) FROM pragma_table_info('files') WHERE name = 'reread'"), "0");
}

TEST_F(OldCatalogue, ANewCatalogueIsCurrentSqlInOneStep) {
    test::CommandResult schema = test::run_modelcat("schema");
    ASSERT_EQ(schema.exit_code, 0) << schema.err;
    const std::string current = read_source_file("schema/current.sql"), reference = read_source_file("schema/reference.sql");
    EXPECT_EQ(schema.out, current + "\n-- schema/reference.sql\n" + reference);
    const fs::path db = tmp_ / "from-schema.db";
    SQLite::Database(db.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE).exec(schema.out);
    EXPECT_EQ(schema_description(db), fresh_schema_);
    EXPECT_EQ(test::sql_value(db, "PRAGMA user_version"), std::to_string(catalog::schema_version()));
    EXPECT_EQ(rows_text(db, "SELECT * FROM tensor_name_map"), rows_text(current_, "SELECT * FROM tensor_name_map"));
    // the binary's tables (ggml_types.def, file_types.def) reach a catalogue through its writable open
    EXPECT_EQ(test::sql_value(current_, "SELECT count(*) FROM ggml_types"), std::to_string(model::ggml_types().size()));
    EXPECT_EQ(test::sql_value(current_, "SELECT count(*) FROM file_type_names"), std::to_string(model::file_type_names().size()));
}

// file_type_names and tensor_name_map follow the binary, as ggml_types does: a catalogue an older
// build wrote gets this build's rows at its next writable open, without a migration.
TEST_F(OldCatalogue, ReferenceRowsAreWrittenByEveryWritableOpen) {
    const auto reference_rows = [this] {
        return rows_text(current_, "SELECT * FROM file_type_names") + rows_text(current_, "SELECT * FROM tensor_name_map") +
               rows_text(current_, "SELECT * FROM ggml_types");
    };
    const std::string expected = reference_rows();
    SQLite::Database(current_.string(), SQLite::OPEN_READWRITE)
        .exec("DELETE FROM file_type_names WHERE file_type = 41; UPDATE tensor_name_map SET gguf_kind = 'old' WHERE"
              " architecture = 'qwen2'; DELETE FROM ggml_types WHERE name = 'Q4_K'");
    ASSERT_NE(reference_rows(), expected);
    test::CommandResult r = test::run_modelcat("migrate --db " + current_.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("(already current)"), std::string::npos) << r.out;
    EXPECT_EQ(reference_rows(), expected);
}

// Schema 12's kind, NULL for models catalogued before, is filled by the next crawl with the crawl's rule.
TEST(OlderCatalogueKinds, AreFilledByTheNextCrawlWithTheCrawlsRule) {
    test::TempDir tmp;
    const fs::path store = tmp / "store", current = tmp / "current.db", old = tmp / "old.db";
    fs::create_directories(store);
    kit::tiny_llama("tiny", 8).write(store / "tiny.gguf");
    kit::tiny_mmproj().write(store / "mmproj.gguf");
    kit::tiny_lora(4.0f).write(store / "lora.gguf");
    kit::tiny_imatrix().write(store / "tiny.imatrix.gguf");
    kit::GgufWriter unknown;
    unknown.add_kv("general.type", GgufValue::str("control_vector"));
    unknown.add_tensor("direction.1", {32}, 0);
    unknown.write(store / "control.gguf");
    for (const char* f : {"ggml-vocab-gpt-2.gguf", "ollama-discollama-lora-adapters.safetensors", "st-samples-overall.safetensors"})
        fs::copy_file(test::fixtures_dir() / f, store / f);
    ASSERT_EQ(test::run_modelcat("crawl -q --db " + current.string() + " " + store.string()).exit_code, 0);
    write_old_catalogue(old, kKindVersion - 1, current);
    ASSERT_EQ(test::run_modelcat("migrate --db " + old.string()).exit_code, 0);
    const std::string kinds = "SELECT group_concat(name || ':' || coalesce(kind, 'NULL'), ' ') FROM (SELECT * FROM models ORDER BY name)";
    EXPECT_EQ(test::sql_value(old, "SELECT count(*) || ' ' || count(kind) FROM models"), "8 0");
    ASSERT_EQ(test::run_modelcat("crawl -q --db " + old.string() + " " + store.string()).exit_code, 0);
    EXPECT_EQ(test::sql_value(current, kinds),
              "control:unknown ggml-vocab-gpt-2:vocab lora:adapter mmproj:mmproj ollama-discollama-lora-adapters:adapter "
              "st-samples-overall:model tiny:model tiny.imatrix:imatrix");
    EXPECT_EQ(test::sql_value(old, kinds), test::sql_value(current, kinds));
}

// Schema 18 moves the tensor table into names, layouts and rows: every value of every row is read
// back through the view as the table held it (split sets, checkpoints, safetensors dtypes, unknown
// types), and nothing is left for the next crawl to read again.
TEST(CompactTensors, AnOlderCatalogueKeepsEveryTensorValue) {
    test::TempDir tmp;
    const fs::path store = tmp / "store", current = tmp / "current.db", old = tmp / "old.db";
    kit::write_zoo(store / "zoo", 40);
    for (const char* f : {"ggml-vocab-gpt-2.gguf", "st-samples-overall.safetensors", "ollama-discollama-lora-adapters.safetensors"})
        fs::copy_file(test::fixtures_dir() / f, store / f);
    ASSERT_EQ(test::run_modelcat("crawl -q --db " + current.string() + " " + store.string()).exit_code, 0);
    write_old_catalogue(old, migration_version("compact_tensors") - 1, current);
    const std::string all = "SELECT * FROM tensors ORDER BY file_id, name";
    ASSERT_EQ(test::sql_value(old, "SELECT type FROM sqlite_schema WHERE name = 'tensors'"), "table");
    const std::string before = rows_text(old, all);
    ASSERT_GT(before.size(), 100000u);
    test::CommandResult r = test::run_modelcat("migrate --db " + old.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("; 0 files to re-read"), std::string::npos) << r.out;
    EXPECT_EQ(test::sql_value(old, "SELECT type FROM sqlite_schema WHERE name = 'tensors'"), "view");
    // the pages the old table held are given back (VACUUM), not left free in the file
    EXPECT_EQ(test::sql_value(old, "SELECT (SELECT freelist_count FROM pragma_freelist_count) * 4 <= (SELECT page_count FROM pragma_page_count)"), "1");
    EXPECT_EQ(rows_text(old, all), before);
    EXPECT_EQ(rows_text(old, all), rows_text(current, all));
    EXPECT_EQ(test::sql_value(old, "SELECT count(*) FROM tensor_names"), test::sql_value(current, "SELECT count(*) FROM tensor_names"));
    EXPECT_EQ(test::sql_value(old, "SELECT count(*) FROM tensor_layouts"), test::sql_value(current, "SELECT count(*) FROM tensor_layouts"));
    // the next crawl finds every file unchanged and writes through the migrated parts
    const std::string by_location = "SELECT f.location, t.name, t.layer, t.kind, t.n_dims, t.dims, t.n_elements, t.type_id,"
                                    " t.type_name, t.offset, t.bytes, t.expected_bytes, t.bits_per_weight, t.info_offset"
                                    " FROM tensors t JOIN files f USING (file_id) ORDER BY 1, 2";
    const std::string migrated = rows_text(old, by_location);
    ASSERT_EQ(test::run_modelcat("crawl -q --force --db " + old.string() + " " + store.string()).exit_code, 0);
    EXPECT_EQ(rows_text(old, by_location), migrated);
}

}  // namespace
