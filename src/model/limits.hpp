#pragma once
// Resource caps for untrusted input, and their defaults: the one place they
// are given (the CLI's help is written from these values).
#include <cstdint>

namespace modelcat::model {

// A capped input is an error, never an OOM.
struct Limits {
    uint64_t max_header_bytes = 256ull << 20;
    uint64_t max_metadata_entries = 1u << 20;
    uint64_t max_array_length = 1ull << 28;
    uint64_t max_tensors = 1u << 20;
    uint32_t max_nesting = 8;
    uint32_t max_alignment = 1u << 20;
    uint64_t max_string_bytes = 64ull << 20;
    uint64_t array_json_cap = 64;  // arrays up to this length are stored as JSON
};

}  // namespace modelcat::model
