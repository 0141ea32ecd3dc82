#pragma once
// Writes one model's rows in one savepoint, all or none: the model, its files,
// metadata, tensors, warnings, census, policy layers, recipe, and the history event. It only
// writes; every value was derived before (crawl/derive.hpp).
#include <SQLiteCpp/Database.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/batch_insert.hpp"
#include "catalog/named_statement.hpp"
#include "catalog/tensor_parts.hpp"
#include "model/rows.hpp"

namespace modelcat::catalog {

class ModelWriter {
public:
    explicit ModelWriter(SQLite::Database& db);
    // Replaces whatever was catalogued at the model's location; returns model_id. The caller holds
    // the transaction (several models share one: catalog/writer.hpp).
    int64_t write(int64_t crawl_id, const model::ModelRows& rows);
    // Whether the last write removed another model that held one of its files (files regrouped).
    bool evicted_others() const { return evicted_; }

private:
    struct Before {
        int64_t file_bytes;
        std::string policy_hash, census;
        std::optional<std::string> metadata;  // the data files' metadata hashes (model_events.metadata_before)
    };
    int64_t write_rows(int64_t crawl_id, const model::ModelRows& rows);
    std::optional<Before> previous(const std::string& location);
    void evict_moved_files(const model::ModelRows& rows);
    int64_t upsert_model(int64_t crawl_id, const model::ModelRow& m);
    void clear_children(int64_t model_id);
    int64_t insert_file(int64_t crawl_id, int64_t model_id, const model::FileRow& f);
    static void bind_metadata(BatchInsert::Row& st, int64_t model_id, int64_t file_id, const model::MetadataEntry& e);
    void insert_tensors(int64_t file_id, int64_t data_start, const std::vector<model::TensorRow>& tensors);
    static void bind_census(BatchInsert::Row& st, int64_t model_id, const model::CensusRow& c);
    void bind_policy(BatchInsert::Row& st, int64_t model_id, const model::PolicyRow& p);
    void insert_warning(int64_t crawl_id, int64_t model_id, const std::string& location, const model::Warning& w);
    void insert_refusal(int64_t model_id, int64_t file_id, size_t seq, const std::pair<std::string, std::string>& refusal);
    void insert_recipe(int64_t model_id, const model::RecipeRow& r);
    void insert_memory(int64_t model_id, const model::MemoryRow& m);
    void record_event(int64_t crawl_id, int64_t model_id, const std::optional<Before>& before);

    static constexpr std::array<const char*, 7> kChildTables = {"files",   "census",       "warnings",     "policy_rows",
                                                                "recipes", "memory_terms", "memory_caches"};

    // Prepared once: a crawl writes thousands of models.
    NamedStatement previous_, evict_, upsert_, file_, warning_, refusal_, recipe_, event_, memory_, memory_cache_;
    BatchInsert metadata_, tensors_;
    TensorParts parts_;
    BatchInsert census_, policy_;
    std::vector<NamedStatement> clear_;  // one per kChildTables
    SQLite::Database& db_;
    bool evicted_ = false;
};

}  // namespace modelcat::catalog
