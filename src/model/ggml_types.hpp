#pragma once
// ggml tensor types: id -> name and block layout, from ggml_types.def.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace modelcat::model {

// A type's id by its name, generated from ggml_types.def: GgmlTypeId::Q4_K is 12.
// For code that names a type, so that no other file lists type ids.
enum class GgmlTypeId : uint32_t {
#define X(id, name, block, size) name = id,
#include "model/ggml_types.def"
#undef X
};

// The id as a file stores it: ggml_id(GgmlTypeId::Q4_K) == 12.
constexpr uint32_t ggml_id(GgmlTypeId t) { return static_cast<uint32_t>(t); }

// A stored id against a named type: `tensor.ggml_type == GgmlTypeId::F16`.
constexpr bool operator==(uint32_t id, GgmlTypeId t) { return id == ggml_id(t); }

struct GgmlType {
    uint32_t id;
    std::string_view name;
    uint32_t block_size;  // elements per block
    uint32_t type_size;   // bytes per block
    double bits_per_weight() const { return 8.0 * type_size / block_size; }
};

// Every type of current ggml, in id order.
std::span<const GgmlType> ggml_types();

// nullptr for ids ggml does not define (removed or newer than this table).
const GgmlType* find_ggml_type(uint32_t id);

// The type's name, or "type_<id>" for an unknown id (kept, never fatal).
std::string ggml_type_name(uint32_t id);

// Bytes a tensor of n_elements occupies, or nullopt when the type is unknown,
// n_elements is not a whole number of blocks or the size overflows 64 bits.
std::optional<uint64_t> ggml_expected_bytes(uint32_t id, uint64_t n_elements);

}  // namespace modelcat::model
