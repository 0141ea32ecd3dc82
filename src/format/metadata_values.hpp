#pragma once
// Reading hyperparameters out of a parsed header: a key's entry, a non-negative
// integer, and the integers of an array the parser kept (arrays up to
// Limits::array_json_cap elements keep their values).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "model/header.hpp"

namespace modelcat::format {

const model::MetadataEntry* find_metadata(const model::FileHeader& h, std::string_view key);

// An unsigned or non-negative signed integer, or a bool as 0/1; nullopt for anything else.
std::optional<uint64_t> unsigned_value(const model::MetadataValue& v);

// The elements of an array of integers or bools whose values the parser kept; nullopt when
// it kept none (a longer array) or an element is not a non-negative integer.
std::optional<std::vector<uint64_t>> kept_integers(const model::ArraySummary& a);

}  // namespace modelcat::format
