#include "catalog/tensor_parts.hpp"

#include <SQLiteCpp/Statement.h>

namespace modelcat::catalog {

TensorParts::TensorParts(SQLite::Database& db)
    : db_(db), name_(db, "INSERT INTO tensor_names (name, layer, kind) VALUES (:name, :layer, :kind)"),
      layout_(db, "INSERT INTO tensor_layouts (n_dims, dims, n_elements, type_id, type_name, expected_bytes, bytes)"
                  " VALUES (:n_dims, :dims, :n_elements, :type_id, :type_name, :expected_bytes, :bytes)"),
      layers_(db, "INSERT INTO layer_lists (layers) VALUES (:layers)") {}

// The columns that make a layout distinct (its UNIQUE constraint), NULLs included, into `key`
// (a buffer reused: one per tensor written).
void TensorParts::layout_key(const model::TensorRow& t, std::string& key) {
    key.assign(t.dims);
    key += '\x1f';
    key += t.type_name;
    key += '\x1f';
    key += t.type_id ? std::to_string(*t.type_id) : "NULL";
    key += '\x1f';
    key += t.expected_bytes ? std::to_string(*t.expected_bytes) : "NULL";
    key += '\x1f';
    key += std::to_string(t.bytes);
}

void TensorParts::load() {
    names_.clear();
    layouts_.clear();
    SQLite::Statement names(db_, "SELECT name_id, name FROM tensor_names");
    while (names.executeStep()) names_.emplace(names.getColumn(1).getString(), names.getColumn(0).getInt64());
    SQLite::Statement layouts(db_, "SELECT layout_id, dims, type_name, type_id, expected_bytes, bytes FROM tensor_layouts");
    while (layouts.executeStep()) {
        model::TensorRow t;
        t.dims = layouts.getColumn(1).getString();
        t.type_name = layouts.getColumn(2).getString();
        if (!layouts.getColumn(3).isNull()) t.type_id = layouts.getColumn(3).getInt64();
        if (!layouts.getColumn(4).isNull()) t.expected_bytes = layouts.getColumn(4).getInt64();
        t.bytes = layouts.getColumn(5).getInt64();
        layout_key(t, key_);
        layouts_.emplace(key_, layouts.getColumn(0).getInt64());
    }
    layer_lists_.clear();
    SQLite::Statement lists(db_, "SELECT layers_id, layers FROM layer_lists");
    while (lists.executeStep()) layer_lists_.emplace(lists.getColumn(1).getString(), lists.getColumn(0).getInt64());
    loaded_ = true;
}

void TensorParts::forget() { loaded_ = false; }

int64_t TensorParts::name_id(const model::TensorRow& t) {
    if (!loaded_) load();
    auto it = names_.find(t.name);
    if (it != names_.end()) return it->second;
    name_.bind(":name", t.name);
    name_.bind(":layer", t.layer);
    name_.bind(":kind", t.kind);
    name_.exec();
    return names_.emplace(t.name, db_.getLastInsertRowid()).first->second;
}

int64_t TensorParts::layout_id(const model::TensorRow& t) {
    if (!loaded_) load();
    layout_key(t, key_);
    auto it = layouts_.find(key_);
    if (it != layouts_.end()) return it->second;
    layout_.bind(":n_dims", t.n_dims);
    layout_.bind(":dims", t.dims);
    layout_.bind(":n_elements", t.n_elements);
    layout_.bind(":type_id", t.type_id);
    layout_.bind(":type_name", t.type_name);
    layout_.bind(":expected_bytes", t.expected_bytes);
    layout_.bind(":bytes", t.bytes);
    layout_.exec();
    return layouts_.emplace(key_, db_.getLastInsertRowid()).first->second;
}

std::optional<int64_t> TensorParts::layers_id(const std::optional<std::string>& layers) {
    if (!layers) return std::nullopt;
    if (!loaded_) load();
    auto it = layer_lists_.find(*layers);
    if (it != layer_lists_.end()) return it->second;
    layers_.bind(":layers", *layers);
    layers_.exec();
    return layer_lists_.emplace(*layers, db_.getLastInsertRowid()).first->second;
}

}  // namespace modelcat::catalog
