#pragma once
// llama_ftype, the values of general.file_type, from file_types.def: the names the
// catalogue's file_type_names holds, and what llama-quantize writes for each.
#include <cstdint>
#include <span>
#include <string_view>

#include "model/ggml_types.hpp"

namespace modelcat::model {

enum class FileType : uint32_t {
#define QUANT_FILE_TYPE(id, name, default_type) name = id,
#define FILE_TYPE(id, name, removed) name = id,
#include "model/file_types.def"
#undef FILE_TYPE
#undef QUANT_FILE_TYPE
};

// Every file type llama.cpp names, in id order (file_type_names' rows).
struct FileTypeName {
    uint32_t id;
    std::string_view name;  // "MOSTLY_Q4_K_M"
    bool removed;           // llama.cpp dropped it
};
std::span<const FileTypeName> file_type_names();

// A file type llama-quantize writes.
struct FileTypeInfo {
    FileType id;
    std::string_view name;       // "MOSTLY_Q4_K_M"
    std::string_view tool_name;  // "Q4_K_M", as llama-quantize's last argument
    GgmlTypeId default_type;     // llama_ftype_get_default_type
};
// The file types llama-quantize writes at the replayed revision, in id order.
std::span<const FileTypeInfo> quantize_file_types();
const FileTypeInfo* find_file_type(uint32_t id);  // nullptr: not one llama-quantize writes
const FileTypeInfo& file_type_info(FileType t);

}  // namespace modelcat::model
