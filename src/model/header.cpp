#include "model/header.hpp"

namespace modelcat::model {

const char* value_type_name(ValueType t) {
    switch (t) {
        case ValueType::u8: return "uint8";
        case ValueType::i8: return "int8";
        case ValueType::u16: return "uint16";
        case ValueType::i16: return "int16";
        case ValueType::u32: return "uint32";
        case ValueType::i32: return "int32";
        case ValueType::f32: return "float32";
        case ValueType::boolean: return "bool";
        case ValueType::string: return "string";
        case ValueType::array: return "array";
        case ValueType::u64: return "uint64";
        case ValueType::i64: return "int64";
        case ValueType::f64: return "float64";
    }
    return "unknown";
}

std::optional<int64_t> metadata_integer(const FileHeader& h, std::string_view key) {
    for (const auto& e : h.metadata) {
        if (e.key != key) continue;
        if (auto* u = std::get_if<uint64_t>(&e.value)) return static_cast<int64_t>(*u);
        if (auto* i = std::get_if<int64_t>(&e.value)) return *i;
    }
    return std::nullopt;
}

std::optional<std::string> metadata_string(const FileHeader& h, std::string_view key) {
    for (const auto& e : h.metadata)
        if (e.key == key)
            if (auto* s = std::get_if<std::string>(&e.value)) return *s;
    return std::nullopt;
}

const char* format_name(Format f) {
    switch (f) {
        case Format::gguf: return "gguf";
        case Format::safetensors: return "safetensors";
        case Format::json: return "json";
    }
    return "unknown";
}

}  // namespace modelcat::model
