// The catalogue at scale: the summaries written at crawl time (schema 007) equal
// what the views of schema 2-3 computed, a catalogue of the older schema,
// migrated and re-read, has the same rows, and no per-model report or view lookup scans all
// of `tensors` or `metadata` (EXPLAIN QUERY PLAN).
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include "catalog/embedded_sql.hpp"
#include "catalog/query.hpp"
#include "catalog/writer.hpp"
#include "crawl/crawler.hpp"
#include "kit/llama31.hpp"
#include "kit/zoo.hpp"
#include "schema_history.hpp"
#include "support.hpp"

using namespace modelcat;

namespace {

// The views as schema versions 2-3 defined them: the reference for the precomputed rows.
const std::string kOldPolicyMap = R"(
SELECT t.model_id, t.kind AS tensor_kind, t.type_id, t.type_name, count(*) AS tensors,
       (SELECT group_concat(layer, ',')
          FROM (SELECT t2.layer FROM tensors t2
                 WHERE t2.model_id = t.model_id AND t2.kind = t.kind AND t2.type_name = t.type_name
                   AND t2.layer IS NOT NULL ORDER BY t2.layer)) AS layers
  FROM tensors t
 GROUP BY t.model_id, t.kind, t.type_id, t.type_name)";

const std::string kOldMajority = R"(
SELECT model_id, type_id, type_name
  FROM (SELECT c.model_id, c.type_id, c.type_name,
               row_number() OVER (PARTITION BY c.model_id
                                  ORDER BY c.tensors DESC, c.params DESC, c.type_id, c.type_name) AS rank
          FROM census c WHERE c.type_name <> 'F32')
 WHERE rank = 1)";

const std::string kOldCensus = R"(
SELECT m.model_id, (SELECT group_concat(k, ' ')
          FROM (SELECT coalesce(CAST(c.type_id AS TEXT), c.type_name) || ':' || c.tensors AS k
                  FROM census c WHERE c.model_id = m.model_id ORDER BY c.params DESC, c.type_id, c.type_name))
  FROM models m)";

const std::string kOldBlockCount = R"(
SELECT m.model_id, (SELECT md.value FROM metadata md
                     WHERE md.model_id = m.model_id AND md.key = m.architecture || '.block_count')
  FROM models m)";

const std::string kOldDeviations = "SELECT p.model_id, m.name, mj.type_name, p.type_id, p.type_name, p.tensor_kind, "
                                   "p.layers, p.tensors FROM (" + kOldPolicyMap + ") p JOIN models m USING (model_id) "
                                   "JOIN (" + kOldMajority + ") mj USING (model_id) "
                                   "WHERE p.type_name <> mj.type_name AND p.type_name <> 'F32'";

const std::string kOldSameFileType = R"(
SELECT g.architecture, g.file_type, f.name, count(*), count(DISTINCT g.policy_hash),
       group_concat(g.model_id, ','), group_concat(g.name, ',')
  FROM (SELECT m.*, (SELECT md.value FROM metadata md
                      WHERE md.model_id = m.model_id AND md.key = m.architecture || '.block_count') AS bc
          FROM models m WHERE m.file_type IS NOT NULL ORDER BY m.model_id) g
  LEFT JOIN file_type_names f ON f.file_type = g.file_type
 GROUP BY g.architecture, g.bc, g.file_type
HAVING count(DISTINCT g.policy_hash) > 1)";

// named_tensors as it was written before one lookup per cell: five lookups per data file, then a GROUP BY pivot.
const std::string kOldNamedTensors = R"(
SELECT name,
       max(CASE WHEN tensor = 'token_embd.weight' THEN cell END) AS token_embd,
       max(CASE WHEN tensor = 'output.weight' THEN cell END) AS output,
       max(CASE WHEN tensor = 'blk.0.attn_v.weight' THEN cell END) AS blk0_attn_v,
       max(CASE WHEN tensor = 'blk.0.ffn_down.weight' THEN cell END) AS blk0_ffn_down,
       max(CASE WHEN tensor = 'blk.0.attn_q.weight' THEN cell END) AS blk0_attn_q
  FROM (SELECT m.model_id, m.name, m.file_bytes, t.name AS tensor,
               coalesce(CAST(t.type_id AS TEXT), t.type_name) || '(' || printf('%.2f', t.bits_per_weight) || ')' AS cell
          FROM models m
          JOIN files f ON f.model_id = m.model_id AND f.role = 'data'
          LEFT JOIN tensors t ON t.file_id = f.file_id
               AND t.name IN ('token_embd.weight', 'output.weight', 'blk.0.attn_v.weight', 'blk.0.ffn_down.weight',
                              'blk.0.attn_q.weight')
         WHERE m.name LIKE coalesce(:pattern, '%') AND m.tensor_count > 0)
 GROUP BY model_id
 ORDER BY file_bytes, model_id)";

// The whole-catalogue views as schema 20 wrote them, each a plain GROUP BY over every row: the
// reference for schema 21's, which group by indexes.
const std::map<std::string, std::string> kPlainWholeCatalogueViews{
    {"type_rates", R"(
SELECT c.type_id, c.type_name, g.bits_per_weight, CASE WHEN sum(c.params) > 0 THEN sum(c.bytes) * 8.0 / sum(c.params) END,
       sum(c.tensors), count(DISTINCT c.model_id)
  FROM census c JOIN models m ON m.model_id = c.model_id AND m.kind = 'model'
  LEFT JOIN ggml_types g ON g.type_id = c.type_id
 GROUP BY c.type_id, c.type_name)"},
    {"same_file_type_different_policy", R"(
SELECT g.architecture, g.file_type, f.name, count(*), count(DISTINCT g.policy_hash), group_concat(g.model_id, ','),
       group_concat(g.name, ','), group_concat(iif(g.why <> 'stock', g.name || ': ' || g.why, NULL), char(10))
  FROM (SELECT m.*, r.why FROM models m LEFT JOIN recipes r ON r.model_id = m.model_id
         WHERE m.file_type IS NOT NULL AND m.kind = 'model' ORDER BY m.model_id) g
  LEFT JOIN file_type_names f ON f.file_type = g.file_type
 GROUP BY g.architecture, g.block_count, g.file_type
HAVING count(DISTINCT g.policy_hash) > 1)"},
    {"duplicates", R"(
SELECT size, header_hash, sha256, count(*), group_concat(location, char(10)), group_concat(model_id, ',')
  FROM (SELECT * FROM files WHERE status <> 'gone' AND header_hash IS NOT NULL AND role = 'data' ORDER BY location)
 GROUP BY coalesce(sha256, size || ':' || header_hash)
HAVING count(*) > 1)"},
    {"same_weights_different_metadata", R"(
SELECT f.tensor_index_hash, count(*), count(DISTINCT f.metadata_hash), group_concat(f.location, char(10)),
       group_concat(f.model_id, ',')
  FROM (SELECT * FROM files WHERE role = 'data' AND status <> 'gone' AND tensor_count > 0
           AND tensor_index_hash IS NOT NULL ORDER BY location) f
 GROUP BY f.tensor_index_hash
HAVING count(DISTINCT f.metadata_hash) > 1)"},
};

// Every row of `sql` as one "|"-joined string ("NULL" for NULL), in order.
std::vector<std::string> ordered_rows(SQLite::Database& db, const std::string& sql) {
    SQLite::Statement st(db, sql);
    std::vector<std::string> out;
    while (st.executeStep()) {
        std::string line;
        for (int i = 0; i < st.getColumnCount(); ++i)
            line += (i ? "|" : "") + (st.getColumn(i).isNull() ? std::string("NULL") : st.getColumn(i).getString());
        out.push_back(line);
    }
    return out;
}

// Every row of `sql` as one "|"-joined string ("NULL" for NULL), sorted.
std::multiset<std::string> rows(SQLite::Database& db, const std::string& sql) {
    SQLite::Statement st(db, sql);
    std::multiset<std::string> out;
    while (st.executeStep()) {
        std::string line;
        for (int i = 0; i < st.getColumnCount(); ++i)
            line += (i ? "|" : "") + (st.getColumn(i).isNull() ? std::string("NULL") : st.getColumn(i).getString());
        out.insert(line);
    }
    return out;
}

// The Llama 3.1 8B lineup, its BF16 checkpoint and GGUF conversion, and a small
// zoo (six architectures, split sets, a checkpoint, three uploaders' policies).
class ScaleCatalogue : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new test::TempDir();
        kit::write_llama31_store(dir_->path());
        zoo_ = kit::write_zoo(dir_->path() / "zoo", 100);  // six families: every architecture
        catalog_ = new catalog::Writer((dir_->path() / "catalog.db").string());
        report_ = crawl::run_crawl(*catalog_, inputs(), {});
        db_ = new SQLite::Database((dir_->path() / "catalog.db").string(), SQLite::OPEN_READWRITE);
    }
    static void TearDownTestSuite() {
        delete db_;
        delete catalog_;
        delete dir_;
    }
    static std::vector<std::string> inputs() {
        return {(dir_->path() / "lineup").string(), (dir_->path() / "source").string(), (dir_->path() / "zoo").string()};
    }
    static SQLite::Database& db() { return *db_; }
    // A catalogue of schema `version` at `path` holding the fresh catalogue's rows of `tables` (every table when
    // empty) in that schema's columns (schema 11 renamed files.kv_count: the older name reads the newer one).
    static void write_older_catalogue(const std::string& path, int version, std::vector<std::string> tables) {
        SQLite::Database old(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
        test::create_historic_schema(old, version);
        if (tables.empty()) {
            SQLite::Statement all(old, "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%'");
            while (all.executeStep()) tables.push_back(all.getColumn(0).getString());
        }
        old.exec("ATTACH '" + (dir_->path() / "catalog.db").string() + "' AS fresh");
        for (const std::string& table : tables) {
            std::string cols, from;
            SQLite::Statement info(old, "SELECT printf('\"%w\"', name) FROM pragma_table_info(?, 'main')");
            info.bind(1, table);
            while (info.executeStep()) {
                const std::string c = info.getColumn(0).getString();
                cols += (cols.empty() ? "" : ", ") + c;
                from += (from.empty() ? "" : ", ") + (c == "\"kv_count\"" && table == "files" ? std::string("declared_kv_count") : c);
            }
            old.exec("INSERT OR REPLACE INTO main." + table + " (" + cols + ") SELECT " + from + " FROM fresh." + table);
        }
        old.exec("DETACH fresh");
    }
    static std::string one(const std::string& sql) { return *rows(db(), sql).begin(); }

    static inline test::TempDir* dir_;
    static inline catalog::Writer* catalog_;
    static inline SQLite::Database* db_;  // the tests' own connection to the catalogue
    static inline crawl::CrawlReport report_;
    static inline kit::ZooCounts zoo_;
};

TEST_F(ScaleCatalogue, CrawlsTheZooWhole) {
    EXPECT_TRUE(report_.failures.empty());
    EXPECT_EQ(one("SELECT count(*) FROM models"), std::to_string(10 + zoo_.models));
    EXPECT_GE(zoo_.split_sets, 1u);
    EXPECT_GE(zoo_.checkpoints, 1u);
    EXPECT_GE(zoo_.hard_links, 1u);
    EXPECT_EQ(one("SELECT count(DISTINCT architecture) FROM models"), "6");
}

TEST_F(ScaleCatalogue, PrecomputedRowsEqualWhatTheOldViewsComputed) {
    EXPECT_EQ(rows(db(), "SELECT * FROM policy_map"), rows(db(), kOldPolicyMap));
    EXPECT_EQ(rows(db(), "SELECT * FROM model_majority_type"), rows(db(), kOldMajority));
    EXPECT_EQ(rows(db(), "SELECT model_id, census FROM quant_summary"), rows(db(), kOldCensus));
    EXPECT_EQ(rows(db(), "SELECT model_id, block_count FROM models"), rows(db(), kOldBlockCount));
    EXPECT_EQ(rows(db(), "SELECT * FROM policy_deviations"), rows(db(), kOldDeviations));
    EXPECT_EQ(rows(db(), "SELECT architecture, file_type, file_type_name, models, policies, model_ids, names"
                         " FROM same_file_type_different_policy"),
              rows(db(), kOldSameFileType));
    // and they are not trivially empty
    EXPECT_GT(std::stoll(one("SELECT count(*) FROM policy_deviations")), 100);
    EXPECT_GT(std::stoll(one("SELECT count(*) FROM same_file_type_different_policy")), 3);
}

// Schema 21's whole-catalogue views give schema 20's rows in its order, also where the zoo has no
// examples: models of other kinds (and one not yet re-read, kind NULL), contents known by sha256
// (a pair; one of several copies, which no longer groups with them), a file gone, re-uploads.
TEST_F(ScaleCatalogue, WholeCatalogueViewsEqualTheirPlainDefinitions) {
    SQLite::Transaction undo(db());  // rolled back: the other tests see the crawl's rows
    db().exec("UPDATE models SET kind = 'mmproj' WHERE model_id % 17 = 3");
    db().exec("UPDATE models SET kind = 'adapter' WHERE model_id % 17 = 5");
    db().exec("UPDATE models SET kind = NULL WHERE model_id % 17 = 7");
    const std::string data_files = "SELECT file_id FROM files WHERE role = 'data' AND tensor_count > 0 ORDER BY location";
    db().exec("UPDATE files SET sha256 = 'a1' WHERE file_id IN (" + data_files + " LIMIT 2)");
    db().exec("UPDATE files SET (size, header_hash) = (SELECT size, header_hash FROM files WHERE file_id = (" + data_files +
              " LIMIT 1 OFFSET 10)) WHERE file_id IN (" + data_files + " LIMIT 4 OFFSET 10)");  // copies under other names
    db().exec("UPDATE files SET sha256 = 'b2' WHERE file_id = (" + data_files + " LIMIT 1 OFFSET 11)");  // one known by its sha256
    db().exec("UPDATE files SET status = 'gone' WHERE file_id = (" + data_files + " LIMIT 1 OFFSET 12)");
    db().exec("UPDATE files SET tensor_index_hash = 't' || (file_id % 3) WHERE file_id IN (" + data_files + " LIMIT 12 OFFSET 20)");
    for (const auto& [view, plain] : kPlainWholeCatalogueViews) {
        const std::vector<std::string> expected = ordered_rows(db(), plain);
        EXPECT_EQ(ordered_rows(db(), "SELECT * FROM " + view), expected) << view;
        EXPECT_GE(expected.size(), 2u) << view;
    }
    EXPECT_EQ(one("SELECT count(*) FROM duplicates WHERE sha256 = 'a1'"), "1");
    EXPECT_EQ(one("SELECT (SELECT sum(models) FROM type_rates) < (SELECT count(*) FROM census)"), "1");  // others left out
}

// memory and fits compute the context-dependent figures once per memory_terms.shape_key: a catalogue
// of schema 21, whose rows migration 22 keys by the JSON of their terms, prints the rows the crawl's
// hashed keys give, also after a crawl re-reads some of its models (both kinds of key at once).
TEST_F(ScaleCatalogue, MemoryReportsOfAMigratedCatalogueHaveTheSameRows) {
    const std::vector<std::pair<std::string, std::map<std::string, std::string>>> reports{
        {"memory", {}}, {"memory", {{"ctx", "0"}, {"cache", "q8_0"}}}, {"fits", {{"vram", "12GiB"}}}};
    EXPECT_GT(std::stoll(one("SELECT count(*) - count(DISTINCT shape_key) FROM memory_terms WHERE basis = 'modelled'")), 10);
    const std::string path = (dir_->path() / "schema21.db").string();
    write_older_catalogue(path, 21, {});
    catalog::Writer migrated(path);
    SQLite::Database migrated_db(path);
    EXPECT_EQ(*rows(migrated_db, "SELECT count(*) FROM memory_terms WHERE shape_key GLOB '[[]*'").begin(),
              one("SELECT count(*) FROM memory_terms WHERE basis = 'modelled'"));
    for (const auto& [name, params] : reports)
        EXPECT_EQ(catalog::run_query(migrated_db, *catalog::bundled_query(name), params).rows,
                  catalog::run_query(db(), *catalog::bundled_query(name), params).rows) << name;
    crawl::CrawlOptions forced;
    forced.force = true;
    const crawl::CrawlReport reread = crawl::run_crawl(migrated, {(dir_->path() / "lineup").string()}, forced);
    EXPECT_GT(reread.totals.files_changed, 0u);
    EXPECT_GT(std::stoll(*rows(migrated_db, "SELECT count(*) FROM memory_terms WHERE shape_key NOT GLOB '[[]*'").begin()), 0);
    for (const auto& [name, params] : reports)
        EXPECT_EQ(catalog::run_query(migrated_db, *catalog::bundled_query(name), params).rows,
                  catalog::run_query(db(), *catalog::bundled_query(name), params).rows) << name;
}

TEST_F(ScaleCatalogue, LineupSummariesAreTheMeasuredFacts) {
    const std::string q4km = "(SELECT model_id FROM models WHERE name = 'Meta-Llama-3.1-8B-Instruct-Q4_K_M')";
    EXPECT_EQ(one("SELECT block_count || ' ' || majority_type_id || ' ' || majority_type_name || ' ' || census"
                  " FROM models WHERE model_id = " + q4km),
              "32 12 Q4_K 12:193 14:33 0:66");
    EXPECT_EQ(one("SELECT layers FROM policy_layers WHERE tensor_kind = 'ffn_down.weight' AND type_name = 'Q6_K'"
                  " AND model_id = " + q4km),
              "0,1,2,3,6,10,13,16,19,21,24,27,28,29,30,31");
    EXPECT_EQ(one("SELECT majority_type_name || ' ' || census || ' ' || coalesce(block_count, 'NULL') FROM models"
                  " WHERE format = 'safetensors' AND name = 'Meta-Llama-3.1-8B-Instruct'"),
              "BF16 BF16:291 NULL");
}

TEST_F(ScaleCatalogue, ReReadModelsKeepOneSetOfSummaryRows) {
    const auto before = rows(db(), "SELECT * FROM policy_layers");
    crawl::CrawlOptions force;
    force.force = true;
    crawl::run_crawl(*catalog_, {(dir_->path() / "lineup").string()}, force);
    EXPECT_EQ(rows(db(), "SELECT * FROM policy_layers"), before);
    EXPECT_EQ(rows(db(), "SELECT * FROM policy_map"), rows(db(), kOldPolicyMap));
}

// The same rows in the same order, split sets and checkpoints included, and a split set whose shards
// both hold a tensor (a hostile file could): the larger cell, as max() picks.
TEST_F(ScaleCatalogue, NamedTensorsIsTheGroupByPivot) {
    const std::string report = *catalog::bundled_query("named_tensors");
    ASSERT_EQ(ordered_rows(db(), report), ordered_rows(db(), kOldNamedTensors));
    EXPECT_GT(ordered_rows(db(), report).size(), 100u);
    SQLite::Transaction tx(db());  // rolled back: the other tests see the catalogue as crawled
    db().exec("UPDATE tensors SET type_id = 8, type_name = 'Q8_0', bits_per_weight = 8.5"
              " WHERE name = 'output.weight' AND file_id = (SELECT min(file_id) FROM files WHERE shard = 1)");
    db().exec("INSERT INTO tensors SELECT t.model_id, f.file_id, t.name, t.layer, t.kind, t.n_dims, t.dims, t.n_elements,"
              " 30, 'BF16', t.offset, t.bytes, t.expected_bytes, NULL, t.info_offset FROM tensors t"
              " JOIN files f ON f.model_id = t.model_id AND f.shard = 1"
              " WHERE t.name = 'token_embd.weight' AND f.file_id = (SELECT min(file_id) FROM files WHERE shard = 1)");
    EXPECT_EQ(ordered_rows(db(), report), ordered_rows(db(), kOldNamedTensors));
}

// Schema 18: `tensors` is a view with every column the table had, over rows that store a name and a
// layout once: on the zoo, the three tables take under 30 bytes per tensor (the table and its index
// took 165).
TEST_F(ScaleCatalogue, TensorsAreAViewOfTheTablesColumnsOverCompactRows) {
    EXPECT_EQ(one("SELECT (SELECT type FROM sqlite_schema WHERE name = 'tensors') || ' ' || group_concat(name, ',')"
                  " FROM (SELECT name FROM pragma_table_info('tensors') ORDER BY cid)"),
              "view model_id,file_id,name,layer,kind,n_dims,dims,n_elements,type_id,type_name,offset,bytes,expected_bytes,"
              "bits_per_weight,info_offset");
    const std::string tensors = one("SELECT count(*) FROM tensors");
    EXPECT_EQ(one("SELECT count(*) FROM tensor_rows"), tensors);
    EXPECT_EQ(one("SELECT sum(tensor_count) FROM files WHERE role = 'data'"), tensors);
    EXPECT_EQ(one("SELECT count(*) = count(DISTINCT name) AND count(*) = (SELECT count(DISTINCT name) FROM tensors) FROM tensor_names"), "1");
    EXPECT_LT(std::stoll(one("SELECT count(*) FROM tensor_layouts")) * 20, std::stoll(tensors));
    // stored as before: integers, text and real where the table had them
    EXPECT_EQ(one("SELECT group_concat(DISTINCT typeof(model_id) || typeof(name) || typeof(dims) || typeof(offset) || typeof(bytes) ||"
                  " typeof(bits_per_weight)) FROM tensors WHERE n_elements > 0"),
              "integertexttextintegerintegerreal");
    // bytes and bits_per_weight as the crawl measured them: the census sums them per type
    EXPECT_EQ(one("SELECT count(*) FROM census c WHERE c.bytes <> (SELECT sum(t.bytes) FROM tensors t"
                  " WHERE t.model_id = c.model_id AND t.type_name = c.type_name)"),
              "0");
    const long long bytes = std::stoll(one("SELECT sum(pgsize) FROM dbstat WHERE name IN ('tensor_rows', 'tensor_names',"
                                           " 'tensor_layouts', 'sqlite_autoindex_tensor_names_1', 'sqlite_autoindex_tensor_layouts_1')"));
    EXPECT_LT(bytes, 30 * std::stoll(tensors)) << bytes << " bytes for " << tensors << " tensors";
}

// Scripts that wrote `tensors` still can: its triggers write the parts, and the view shows the row.
TEST_F(ScaleCatalogue, TensorsViewIsWritable) {
    SQLite::Transaction tx(db());  // rolled back: the other tests see the catalogue as crawled
    const std::string file = one("SELECT min(file_id) FROM files WHERE role = 'data' AND format = 'gguf'");
    db().exec("INSERT INTO tensors (model_id, file_id, name, layer, kind, n_dims, dims, n_elements, type_id, type_name, offset,"
              " bytes, expected_bytes, bits_per_weight, info_offset) VALUES (NULL, " + file + ", 'blk.99.new.weight', 99,"
              " 'new.weight', 2, '[64,3]', 192, 8, 'Q8_0', 4096, 224, 204, NULL, 77)");
    const std::string row = "SELECT (model_id = (SELECT model_id FROM files WHERE file_id = " + file + ")) || '|' || layer || '|' ||"
                            " kind || '|' || dims || '|' || type_name || '|' || bytes || '|' || expected_bytes || '|' ||"
                            " bits_per_weight || '|' || info_offset FROM tensors WHERE file_id = " + file + " AND name = 'blk.99.new.weight'";
    EXPECT_EQ(one(row), "1|99|new.weight|[64,3]|Q8_0|224|204|9.33333333333333|77");
    db().exec("UPDATE tensors SET bytes = 204, type_name = 'Q8_X' WHERE file_id = " + file + " AND name = 'blk.99.new.weight'");
    EXPECT_EQ(one(row), "1|99|new.weight|[64,3]|Q8_X|204|204|8.5|77");
    db().exec("DELETE FROM tensors WHERE file_id = " + file + " AND name = 'blk.99.new.weight'");
    EXPECT_EQ(one("SELECT count(*) FROM tensors WHERE name = 'blk.99.new.weight'"), "0");
}

// A catalogue of the schema before 007_scale, holding the crawled rows, opened by this build: the
// migration marks every file, the next crawl re-reads them, and the summaries are then exactly
// what the first crawl wrote.
TEST_F(ScaleCatalogue, OlderCatalogueIsMigratedToTheSameSummaries) {
    const std::string old_path = (dir_->path() / "older.db").string();
    write_older_catalogue(old_path, test::historic_version("007_scale") - 1,
                          {"crawls", "models", "files", "metadata", "tensors", "census"});
    catalog::Writer migrated(old_path);
    SQLite::Database migrated_db(old_path);
    const std::string files = one("SELECT count(*) FROM files");
    EXPECT_EQ(*rows(migrated_db, "SELECT count(*) FROM files WHERE reread").begin(), files);
    EXPECT_EQ(*rows(migrated_db, "SELECT count(*) || ' ' || count(census) FROM models").begin(), one("SELECT count(*) FROM models") + " 0");
    const crawl::CrawlReport reread = crawl::run_crawl(migrated, inputs(), {});
    EXPECT_EQ(std::to_string(reread.totals.files_changed) + " " + std::to_string(reread.totals.files_unchanged), files + " 0");
    for (const std::string sql : {"SELECT * FROM policy_layers",
                                  "SELECT model_id, block_count, majority_type_id, majority_type_name, census FROM models"})
        EXPECT_EQ(rows(migrated_db, sql), rows(db(), sql)) << sql;
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// The SQL's words (identifiers and keywords), upper-cased, in order.
std::vector<std::string> words(const std::string& sql) {
    std::vector<std::string> out;
    std::string w;
    for (char c : sql + " ") {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') w += c;
        else if (!w.empty()) out.push_back(upper(std::exchange(w, "")));
    }
    return out;
}

// Names that stand for `tensors` or `metadata` in a plan: the tables (and tensor_rows, which the
// view `tensors` reads since schema 18) and every alias given to them in the statement or in any
// view (a word after the table name, AS skipped, not a keyword).
std::set<std::string> scanned_names(SQLite::Database& db, const std::string& sql) {
    std::string all = sql;
    SQLite::Statement views(db, "SELECT sql FROM sqlite_schema WHERE type = 'view'");
    while (views.executeStep()) all += "\n" + views.getColumn(0).getString();
    static const std::set<std::string> keywords{"WHERE", "JOIN", "ON", "USING", "GROUP", "ORDER", "LEFT", "WINDOW",
                                                "LIMIT", "UNION", "INNER", "CROSS", "FROM", "AS"};
    std::set<std::string> out{"TENSORS", "TENSOR_ROWS", "METADATA"};
    const std::vector<std::string> w = words(all);
    for (size_t i = 0; i + 1 < w.size(); ++i) {
        if (w[i] != "TENSORS" && w[i] != "TENSOR_ROWS" && w[i] != "METADATA") continue;
        const size_t a = w[i + 1] == "AS" && i + 2 < w.size() ? i + 2 : i + 1;
        if (!keywords.count(w[a])) out.insert(w[a]);
    }
    return out;
}

// Plan lines that read the whole of tensors or metadata (with or without an index).
std::vector<std::string> full_scans(SQLite::Database& db, const std::string& sql,
                                    const std::map<std::string, std::string>& params) {
    SQLite::Statement st(db, "EXPLAIN QUERY PLAN " + sql);
    for (const auto& [k, v] : params) st.bind(":" + k, v);
    const std::set<std::string> names = scanned_names(db, sql);
    std::vector<std::string> out;
    while (st.executeStep()) {
        const std::string detail = st.getColumn(3).getString();
        if (detail.rfind("SCAN ", 0) != 0) continue;
        if (names.count(upper(detail.substr(5, detail.find(' ', 5) - 5)))) out.push_back(detail);
    }
    return out;
}

TEST_F(ScaleCatalogue, PlannerCatchesAFullScan) {  // the check itself finds what it looks for
    EXPECT_EQ(full_scans(db(), "SELECT * FROM tensors t WHERE t.kind = 'x'", {}).size(), 1u);
    EXPECT_EQ(full_scans(db(), "SELECT * FROM metadata WHERE value = 1", {}).size(), 1u);
    EXPECT_TRUE(full_scans(db(), "SELECT * FROM tensors WHERE model_id = 3", {}).empty());
}

TEST_F(ScaleCatalogue, PerModelReportsNeverScanTensorsOrMetadata) {
    const std::string q4km = one("SELECT model_id FROM models WHERE name = 'Meta-Llama-3.1-8B-Instruct-Q4_K_M'");
    const std::string q4kl = one("SELECT model_id FROM models WHERE name = 'Meta-Llama-3.1-8B-Instruct-Q4_K_L'");
    const std::map<std::string, std::map<std::string, std::string>> reports{
        {"policy", {{"model", q4km}}},
        {"diff", {{"a", q4km}, {"b", q4kl}}},
        {"reconcile", {{"gguf", "Meta-Llama-3.1-8B-Instruct-BF16"}, {"source", "Meta-Llama-3.1-8B-Instruct"}}},
    };
    for (const auto& [name, params] : reports) {
        EXPECT_EQ(full_scans(db(), *catalog::bundled_query(name), params), std::vector<std::string>{}) << name;
        EXPECT_FALSE(catalog::run_query(db(), *catalog::bundled_query(name), params).rows.empty()) << name;
    }
}

// The reports that print every model walk an index in the order they print instead of sorting every
// row at the end, so their rows stream (memory after computing each shape's figures first; fits its
// models that fit, then sorts the others); the control, ordered by what it computes, shows the check
// sees a sort.
TEST_F(ScaleCatalogue, ModelWideReportsStreamInThePrintedOrder) {
    auto sorts_its_rows = [&](const std::string& sql) {
        SQLite::Statement plan(db(), "EXPLAIN QUERY PLAN " + sql);
        bool sorts = false;
        while (plan.executeStep())  // parent 0: the statement itself, not a subquery or a CTE
            sorts |= plan.getColumn(1).getInt() == 0 && plan.getColumn(3).getString() == "USE TEMP B-TREE FOR ORDER BY";
        return sorts;
    };
    EXPECT_TRUE(sorts_its_rows("SELECT name FROM quant_summary ORDER BY round(bits_per_weight, 4) DESC, name"));
    for (const char* name :
         {"named_tensors", "quants", "quant_summary", "type_census", "header_budget", "recipes", "memory", "fits"}) {
        EXPECT_FALSE(sorts_its_rows(std::string(*catalog::bundled_query(name)))) << name;
        const std::map<std::string, std::string> params =
            name == std::string("fits") ? std::map<std::string, std::string>{{"vram", "24GiB"}} : std::map<std::string, std::string>{};
        EXPECT_FALSE(catalog::run_query(db(), *catalog::bundled_query(name), params).rows.empty()) << name;
    }
}

// fits prints the models that fit, largest bits per weight first (then name), then those that do
// not, then those without figures, each model once.
TEST_F(ScaleCatalogue, FitsPrintsWhatFitsLargestRateFirstThenTheOthers) {
    const catalog::QueryResult r = catalog::run_query(db(), *catalog::bundled_query("fits"), {{"vram", "6GiB"}});
    auto at = [&](const std::vector<catalog::Cell>& row, const std::string& column) {
        return row.at(std::find(r.columns.begin(), r.columns.end(), column) - r.columns.begin());
    };
    auto group = [&](const std::vector<catalog::Cell>& row) {  // 0: fits, 1: does not, 2: no figures
        const catalog::Cell f = at(row, "fits");
        return std::holds_alternative<std::monostate>(f) ? 2 : std::get<int64_t>(f) == 1 ? 0 : 1;
    };
    std::map<int64_t, double> rates;  // the rate as measured (the report prints it rounded), -1 when unknown
    SQLite::Statement measured(db(), "SELECT model_id, coalesce(bits_per_weight, -1) FROM quant_summary");
    while (measured.executeStep()) rates[measured.getColumn(0).getInt64()] = measured.getColumn(1).getDouble();
    auto rate = [&](const std::vector<catalog::Cell>& row) { return rates.at(std::get<int64_t>(at(row, "model_id"))); };
    std::set<int> groups;
    std::set<int64_t> models;
    for (size_t i = 0; i < r.rows.size(); ++i) {
        groups.insert(group(r.rows[i]));
        EXPECT_TRUE(models.insert(std::get<int64_t>(at(r.rows[i], "model_id"))).second) << i;
        if (i == 0) continue;
        const auto &a = r.rows[i - 1], &b = r.rows[i];
        ASSERT_LE(group(a), group(b)) << i;
        if (group(a) != group(b)) continue;
        ASSERT_GE(rate(a), rate(b)) << i;
        if (rate(a) == rate(b)) {
            ASSERT_LE(std::get<std::string>(at(a, "name")), std::get<std::string>(at(b, "name"))) << i;
        }
    }
    EXPECT_EQ(groups, (std::set<int>{0, 1, 2}));
    EXPECT_EQ(std::to_string(r.rows.size()), one("SELECT count(*) FROM models WHERE kind = 'model'"));
}

TEST_F(ScaleCatalogue, PerModelViewLookupsNeverScanTensorsOrMetadata) {
    SQLite::Statement views(db(), "SELECT v.name FROM sqlite_schema v WHERE v.type = 'view'"
                                  " AND EXISTS (SELECT 1 FROM pragma_table_info(v.name) c WHERE c.name = 'model_id')");
    std::vector<std::string> checked;
    while (views.executeStep()) {
        const std::string view = views.getColumn(0).getString();
        const std::string sql = "SELECT * FROM " + view + " WHERE model_id = :id";
        EXPECT_EQ(full_scans(db(), sql, {{"id", "7"}}), std::vector<std::string>{}) << view;
        checked.push_back(view);
    }
    EXPECT_GE(checked.size(), 6u);  // quant_summary, type_census, policy_map, model_majority_type, policy_deviations, model_refs
}

}  // namespace
