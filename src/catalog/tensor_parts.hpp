#pragma once
// The shared parts of tensor and policy rows (schema 18): each tensor name, each (shape, type)
// layout and each list of layers is a row of its own, written once and referenced by id
// (schema/current.sql, "Tensor descriptors" and policy_rows).
// The ids are remembered for the connection's life; after a rollback they are read again, since
// the ids the rolled-back work handed out are gone.
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "catalog/named_statement.hpp"
#include "model/rows.hpp"

namespace modelcat::catalog {

class TensorParts {
public:
    explicit TensorParts(SQLite::Database& db);
    int64_t name_id(const model::TensorRow& t);    // written when new
    int64_t layout_id(const model::TensorRow& t);  // written when new
    std::optional<int64_t> layers_id(const std::optional<std::string>& layers);  // written when new; none for none
    void forget();                                 // after a rollback: read the ids again when next asked

private:
    void load();
    static void layout_key(const model::TensorRow& t, std::string& key);
    SQLite::Database& db_;
    NamedStatement name_, layout_, layers_;
    std::unordered_map<std::string, int64_t> names_, layouts_, layer_lists_;
    std::string key_;
    bool loaded_ = false;
};

}  // namespace modelcat::catalog
