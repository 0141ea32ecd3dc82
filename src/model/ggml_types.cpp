#include "model/ggml_types.hpp"

#include <algorithm>
#include <array>

namespace modelcat::model {

namespace {
constexpr std::array kTypes{
#define X(id, name, block, size) GgmlType{id, #name, block, size},
#include "model/ggml_types.def"
#undef X
};
static_assert(std::is_sorted(kTypes.begin(), kTypes.end(),
                             [](const GgmlType& a, const GgmlType& b) { return a.id < b.id; }));
}  // namespace

std::span<const GgmlType> ggml_types() { return kTypes; }

const GgmlType* find_ggml_type(uint32_t id) {
    auto it = std::lower_bound(kTypes.begin(), kTypes.end(), id,
                               [](const GgmlType& t, uint32_t v) { return t.id < v; });
    return it != kTypes.end() && it->id == id ? &*it : nullptr;
}

std::string ggml_type_name(uint32_t id) {
    const GgmlType* t = find_ggml_type(id);
    return t ? std::string(t->name) : "type_" + std::to_string(id);
}

std::optional<uint64_t> ggml_expected_bytes(uint32_t id, uint64_t n_elements) {
    const GgmlType* t = find_ggml_type(id);
    uint64_t bytes;
    if (!t || n_elements % t->block_size != 0 ||
        __builtin_mul_overflow(n_elements / t->block_size, uint64_t{t->type_size}, &bytes))
        return std::nullopt;
    return bytes;
}

}  // namespace modelcat::model
