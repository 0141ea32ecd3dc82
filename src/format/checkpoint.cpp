#include "format/checkpoint.hpp"

#include <simdjson.h>

#include <set>

#include "format/json_document.hpp"
#include "format/json_text.hpp"
#include "format/path_check.hpp"
#include "model/error.hpp"

namespace modelcat::format {

namespace {

model::MetadataEntry json_entry(std::string_view key, simdjson::dom::element v) {
    model::MetadataEntry e;
    e.key = std::string(key);
    e.offset = 0;
    switch (v.type()) {
        case simdjson::dom::element_type::STRING: e.type = model::ValueType::string; e.value = std::string(std::string_view(v)); break;
        case simdjson::dom::element_type::INT64: e.type = model::ValueType::i64; e.value = int64_t(v); break;
        case simdjson::dom::element_type::UINT64: e.type = model::ValueType::u64; e.value = uint64_t(v); break;
        case simdjson::dom::element_type::DOUBLE: e.type = model::ValueType::f64; e.value = double(v); break;
        case simdjson::dom::element_type::BOOL: e.type = model::ValueType::boolean; e.value = bool(v); break;
        case simdjson::dom::element_type::ARRAY: {
            model::ArraySummary a;
            a.element_type = model::ValueType::string;  // JSON arrays are heterogeneous; the JSON itself says more
            a.length = simdjson::dom::array(v).size();
            a.json = simdjson::to_string(v);
            a.byte_size = a.json->size();
            e.type = model::ValueType::array;
            e.value = std::move(a);
            break;
        }
        default:  // objects and null: their JSON text
            e.type = model::ValueType::string;
            e.value = std::string(simdjson::to_string(v));
    }
    return e;
}

// A total_size written as a double; past 2^64 its conversion would be undefined (it read as 0).
uint64_t total_size_of(double bytes) {
    if (bytes >= 0x1p64)
        throw model::FormatError::at_json_path("metadata.total_size", "index: total_size " + json_number(bytes) + " is past 2^64 bytes");
    return static_cast<uint64_t>(bytes);
}

}  // namespace

CheckpointIndex parse_checkpoint_index(std::span<const uint8_t> json, size_t max_shards) {
    simdjson::dom::parser parser;
    simdjson::dom::object root = parse_json_object(parser, json, "index");
    CheckpointIndex idx;
    simdjson::dom::object wm;
    if (root["weight_map"].get_object().get(wm)) throw model::FormatError::at_json_path("weight_map", "index has no \"weight_map\" object");
    std::set<std::string> shards;
    for (auto [tensor, file] : wm) {
        std::string path = "weight_map.";
        append_json_string(path, tensor);
        std::string_view f;
        if (file.get_string().get(f)) throw model::FormatError::at_json_path(path, "index: the entry is not a file name");
        if (auto why = escapes_folder(f))
            throw model::FormatError::at_json_path(path, "index: shard name '" + std::string(f) + "' escapes the checkpoint folder (" + *why + ")");
        if (!idx.weight_map.emplace(std::string(tensor), std::string(f)).second)
            throw model::FormatError::at_json_path(path, "index: the tensor is mapped twice");
        shards.insert(std::string(f));
        if (shards.size() > max_shards)
            throw model::FormatError::at_json_path(path, "index names more than the cap of " + std::to_string(max_shards) + " shards");
    }
    idx.shards.assign(shards.begin(), shards.end());
    simdjson::dom::object meta;
    if (root["metadata"].get_object().get(meta) == simdjson::SUCCESS) {
        for (auto [k, v] : meta) {
            idx.metadata.push_back(json_entry(k, v));
            if (k == "total_size") {
                uint64_t t;
                if (v.get_uint64().get(t) == simdjson::SUCCESS) idx.total_size = t;
                else if (double d; v.get_double().get(d) == simdjson::SUCCESS && d >= 0) idx.total_size = total_size_of(d);
                else throw model::FormatError::at_json_path("metadata.total_size", "index: total_size is not a non-negative number");
            }
        }
    }
    return idx;
}

std::vector<model::MetadataEntry> parse_model_config(std::span<const uint8_t> json) {
    simdjson::dom::parser parser;
    std::vector<model::MetadataEntry> out;
    for (auto [k, v] : parse_json_object(parser, json, "config.json")) out.push_back(json_entry(k, v));
    return out;
}

}  // namespace modelcat::format
