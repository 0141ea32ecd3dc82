// Catalogues written at every earlier schema version migrate forward in place
// to exactly the schema a fresh catalogue has; an old catalogue's files whose
// values SQLite's affinity changed are re-read by the next crawl, the others
// stay unchanged; reading commands refuse an old schema with a clear message.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "catalog/embedded_sql.hpp"
#include "catalog/writer.hpp"
#include "kit/gguf_writer.hpp"
#include "kit/kinds.hpp"
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

// A catalogue as a modelcat of schema `version` left it: the first `version`
// migrations, holding the rows of `rows_from` (a current catalogue) in the
// columns that version had, stored through that version's column affinities.
void write_old_catalogue(const fs::path& path, int version, const fs::path& rows_from) {
    SQLite::Database db(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA journal_mode = WAL");
    auto migrations = catalog::schema_migrations();
    for (int i = 0; i < version; ++i) db.exec(std::string(migrations[static_cast<size_t>(i)].sql));
    db.exec("PRAGMA user_version = " + std::to_string(version));
    db.exec("ATTACH '" + rows_from.string() + "' AS src");
    std::vector<std::string> tables;
    SQLite::Statement t(db, "SELECT name FROM main.sqlite_master WHERE type = 'table' ORDER BY rowid");
    while (t.executeStep()) tables.push_back(t.getColumn(0).getString());
    for (const auto& table : tables) {
        std::string cols;
        for (const auto& c : column_names(db, "main", table)) cols += (cols.empty() ? "\"" : ",\"") + c + "\"";
        db.exec("INSERT OR IGNORE INTO main.\"" + table + "\" (" + cols + ") SELECT " + cols + " FROM src.\"" + table + "\"");
    }
}

std::string one(const fs::path& db, const std::string& sql) {
    SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement st(d, sql);
    if (!st.executeStep()) return "(no row)";
    return st.getColumn(0).isNull() ? "NULL" : st.getColumn(0).getString();
}

// The user_version that stores values exactly: the one 006_values brings a catalogue to.
int values_version() {
    auto m = catalog::schema_migrations();
    for (size_t i = 0; i < m.size(); ++i)
        if (m[i].name == "006_values") return static_cast<int>(i + 1);
    return 0;
}

std::string schema_text(const fs::path& db) {
    SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement st(d, "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name");
    std::string out;
    while (st.executeStep()) out += st.getColumn(0).getString() + "\n";
    return out;
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
        clean.write(clean_);
        test::CommandResult r = test::run_modelcat("crawl -q --db " + current_.string() + " " + store_.string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        fresh_schema_ = schema_text(current_);
    }
    test::TempDir tmp_;
    fs::path store_ = tmp_ / "store", damaged_ = store_ / "damaged.gguf", clean_ = store_ / "clean.gguf";
    fs::path current_ = tmp_ / "current.db";
    std::string fresh_schema_;
};

TEST_F(OldCatalogue, EveryEarlierVersionMigratesToTheFreshSchema) {
    ASSERT_GE(values_version(), 6);
    for (int v = 1; v < catalog::schema_version(); ++v) {
        SCOPED_TRACE("from user_version " + std::to_string(v));
        const bool altered = v < values_version();  // "0123" stored as 123, 500000.0 as an integer
        const fs::path db = tmp_ / ("v" + std::to_string(v) + ".db");
        write_old_catalogue(db, v, current_);
        EXPECT_EQ(one(db, "SELECT count(*) FROM metadata WHERE key = 'general.name' AND typeof(value) = 'integer'"),
                  altered ? "1" : "0");
        test::CommandResult r = test::run_modelcat("migrate --db " + db.string());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(r.out, db.string() + ": schema version " + std::to_string(v) + " -> " + std::to_string(catalog::schema_version()) +
                             "; " + (altered ? "1" : "0") + " files to re-read on the next crawl\n");
        EXPECT_EQ(schema_text(db), fresh_schema_);
        EXPECT_EQ(one(db, "PRAGMA integrity_check"), "ok");
        EXPECT_EQ(one(db, "SELECT count(*) FROM pragma_foreign_key_check"), "0");
        EXPECT_EQ(one(db, "SELECT count(*) FROM metadata"), one(current_, "SELECT count(*) FROM metadata"));
        EXPECT_EQ(one(db, "SELECT group_concat(location) FROM files WHERE reread"), altered ? damaged_.string() : "NULL");
        // the view that reads metadata survived the rebuild
        EXPECT_EQ(one(db, "SELECT count(*) FROM same_file_type_different_policy"), "0");
        test::CommandResult again = test::run_modelcat("migrate --db " + db.string());
        EXPECT_NE(again.out.find("(already current)"), std::string::npos) << again.out;
    }
}

TEST_F(OldCatalogue, ItsAlteredFilesAreReReadByTheNextCrawlAndTheOthersKept) {
    const int old = values_version() - 1;
    const fs::path db = tmp_ / "old.db";
    write_old_catalogue(db, old, current_);
    SQLite::Database(db.string(), SQLite::OPEN_READWRITE)
        .exec("CREATE VIEW my_names AS SELECT f.location, m.value FROM metadata m JOIN files f USING (file_id)"
              " WHERE m.key = 'general.name'");  // a user's own view on metadata survives the rebuild
    test::CommandResult dry = test::run_modelcat("crawl --dry-run --db " + db.string() + " " + store_.string());
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    const std::string lines = "\n" + dry.out;  // verdicts at line starts: "unchanged" ends in "changed"
    EXPECT_NE(lines.find("\nchanged\tdamaged\t" + damaged_.string()), std::string::npos) << dry.out;
    EXPECT_NE(lines.find("\nunchanged\tclean\t" + clean_.string()), std::string::npos) << dry.out;
    test::CommandResult r = test::run_modelcat("crawl -q --db " + db.string() + " " + store_.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(one(db, "SELECT files_changed || ' ' || files_unchanged FROM crawls ORDER BY crawl_id DESC LIMIT 1"), "1 1");
    EXPECT_EQ(one(db, "SELECT typeof(value) || ' ' || value FROM metadata WHERE key = 'general.name' AND file_id ="
                      " (SELECT file_id FROM files WHERE location = '" + damaged_.string() + "')"),
              "text 0123");
    EXPECT_EQ(one(db, "SELECT typeof(value) FROM metadata WHERE key = 'llama.rope.freq_base' AND file_id ="
                      " (SELECT file_id FROM files WHERE location = '" + damaged_.string() + "')"),
              "real");
    EXPECT_EQ(one(db, "SELECT count(*) FROM files WHERE reread"), "0");
    EXPECT_EQ(one(db, "SELECT value FROM my_names WHERE location = '" + damaged_.string() + "'"), "0123");
}

TEST_F(OldCatalogue, ReadingCommandsNameMigrateAndLeaveItAlone) {
    const int old = values_version() - 1;  // before the values migration, whose column shows whether it ran
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
    EXPECT_EQ(one(db, "PRAGMA user_version"), std::to_string(old));
    EXPECT_EQ(one(db, "SELECT count(*) FROM pragma_table_info('files') WHERE name = 'reread'"), "0");
}

// Schema 12's kind, filled in SQL for models catalogued before, follows the crawl's rule.
TEST(OlderCatalogueKinds, AreFilledByTheRuleTheCrawlUses) {
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
    write_old_catalogue(old, catalog::schema_version() - 1, current);
    ASSERT_EQ(test::run_modelcat("migrate --db " + old.string()).exit_code, 0);
    const std::string kinds = "SELECT group_concat(name || ':' || kind, ' ') FROM (SELECT * FROM models ORDER BY name)";
    EXPECT_EQ(one(current, kinds),
              "control:unknown ggml-vocab-gpt-2:vocab lora:adapter mmproj:mmproj ollama-discollama-lora-adapters:adapter "
              "st-samples-overall:model tiny:model tiny.imatrix:imatrix");
    EXPECT_EQ(one(old, kinds), one(current, kinds));
}

}  // namespace
