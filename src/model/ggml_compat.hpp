#pragma once
// Would ggml's own GGUF reader (gguf_init_from_reader in ggml/src/gguf.cpp,
// ggml-org/ggml d99724f2b141fed9e1a9f402213506c081433465) read this file?
// A pure function over a header modelcat accepted: every check of ggml's
// that modelcat, by design, does not make itself.
#include <string>
#include <vector>

#include "model/header.hpp"

namespace modelcat::model {

struct GgmlRefusal {
    std::string check;   // version, byte_order, duplicate_key, nested_array, name_length, duplicate_name,
                         // element_count, type_id, row_blocks, offset, data_size
    std::string reason;  // what ggml would refuse, with the field and the values
};

// Empty when ggml would read the file; one entry per reason otherwise.
// Only GGUF headers are checked (safetensors and JSON give an empty list).
std::vector<GgmlRefusal> ggml_refusals(const FileHeader& h);

}  // namespace modelcat::model
