#pragma once
// The per-type census of a model's tensors: the one definition used by
// `show`, the catalogue's census rows and quant_summary's census string.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/header.hpp"

namespace modelcat::model {

struct CensusEntry {
    std::optional<uint32_t> type_id;  // none for safetensors dtypes
    std::string type_name;
    uint64_t tensors = 0, params = 0, bytes = 0;
};

// By parameters, most first; ties by type id, then name.
std::vector<CensusEntry> census(const std::vector<const TensorInfo*>& tensors);
std::vector<CensusEntry> census(const std::vector<TensorInfo>& tensors);

// "12:193 14:33 0:66" (GGUF ids) or "BF16:291" (dtypes), in census order.
std::string census_string(const std::vector<CensusEntry>& entries);
// A census string as a person reads it: "Q4_K:193 Q6_K:33 F32:66" for "12:193 14:33 0:66"
// (dtype names stay; an id ggml does not define is type_<id>).
std::string census_with_type_names(std::string_view census);

}  // namespace modelcat::model
