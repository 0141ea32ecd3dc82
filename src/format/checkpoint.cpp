#include "format/checkpoint.hpp"

#include <simdjson.h>

#include <set>

namespace modelcat::format {

namespace {

simdjson::dom::object parse_object(simdjson::dom::parser& parser, std::span<const uint8_t> json, const char* what) {
    simdjson::dom::element root;
    if (auto err = parser.parse(reinterpret_cast<const char*>(json.data()), json.size()).get(root))
        throw FormatError(0, std::string(what) + " is not valid JSON: " + simdjson::error_message(err));
    simdjson::dom::object obj;
    if (root.get_object().get(obj)) throw FormatError(0, std::string(what) + " is not a JSON object");
    return obj;
}

MetadataEntry json_entry(std::string_view key, simdjson::dom::element v) {
    MetadataEntry e;
    e.key = std::string(key);
    e.offset = 0;
    switch (v.type()) {
        case simdjson::dom::element_type::STRING: e.type = ValueType::string; e.value = std::string(std::string_view(v)); break;
        case simdjson::dom::element_type::INT64: e.type = ValueType::i64; e.value = int64_t(v); break;
        case simdjson::dom::element_type::UINT64: e.type = ValueType::u64; e.value = uint64_t(v); break;
        case simdjson::dom::element_type::DOUBLE: e.type = ValueType::f64; e.value = double(v); break;
        case simdjson::dom::element_type::BOOL: e.type = ValueType::boolean; e.value = bool(v); break;
        case simdjson::dom::element_type::ARRAY: {
            ArraySummary a;
            a.element_type = ValueType::string;  // JSON arrays are heterogeneous; the JSON itself says more
            a.length = simdjson::dom::array(v).size();
            a.json = simdjson::to_string(v);
            a.byte_size = a.json->size();
            e.type = ValueType::array;
            e.value = std::move(a);
            break;
        }
        default:  // objects and null: their JSON text
            e.type = ValueType::string;
            e.value = std::string(simdjson::to_string(v));
    }
    return e;
}

bool escapes_folder(std::string_view name) {
    if (name.empty() || name.front() == '/' || name.find("://") != std::string_view::npos || name.find('\\') != std::string_view::npos)
        return true;
    size_t start = 0;
    while (start <= name.size()) {
        size_t end = name.find('/', start);
        std::string_view part = name.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (part == ".." || part.empty()) return true;
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return false;
}

}  // namespace

CheckpointIndex parse_checkpoint_index(std::span<const uint8_t> json, size_t max_shards) {
    simdjson::dom::parser parser;
    simdjson::dom::object root = parse_object(parser, json, "index");
    CheckpointIndex idx;
    simdjson::dom::object wm;
    if (root["weight_map"].get_object().get(wm)) throw FormatError(0, "index has no \"weight_map\" object");
    std::set<std::string> shards;
    for (auto [tensor, file] : wm) {
        std::string_view f;
        if (file.get_string().get(f))
            throw FormatError(0, "index: weight_map entry '" + std::string(tensor) + "' is not a file name");
        if (escapes_folder(f))
            throw FormatError(0, "index: shard name '" + std::string(f) + "' for tensor '" + std::string(tensor) +
                                     "' escapes the checkpoint folder");
        if (!idx.weight_map.emplace(std::string(tensor), std::string(f)).second)
            throw FormatError(0, "index: tensor '" + std::string(tensor) + "' is mapped twice");
        shards.insert(std::string(f));
        if (shards.size() > max_shards)
            throw FormatError(0, "index names more than the cap of " + std::to_string(max_shards) + " shards");
    }
    idx.shards.assign(shards.begin(), shards.end());
    simdjson::dom::object meta;
    if (root["metadata"].get_object().get(meta) == simdjson::SUCCESS) {
        for (auto [k, v] : meta) {
            idx.metadata.push_back(json_entry(k, v));
            if (k == "total_size") {
                uint64_t t;
                if (v.get_uint64().get(t) == simdjson::SUCCESS) idx.total_size = t;
                else if (double d; v.get_double().get(d) == simdjson::SUCCESS && d >= 0) idx.total_size = uint64_t(d);
                else throw FormatError(0, "index: metadata.total_size is not a non-negative number");
            }
        }
    }
    return idx;
}

std::vector<MetadataEntry> parse_model_config(std::span<const uint8_t> json) {
    simdjson::dom::parser parser;
    std::vector<MetadataEntry> out;
    for (auto [k, v] : parse_object(parser, json, "config.json")) out.push_back(json_entry(k, v));
    return out;
}

}  // namespace modelcat::format
