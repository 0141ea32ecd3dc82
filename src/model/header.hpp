#pragma once
// What a model file's header holds, as a parser reads it: the format-neutral
// result that the catalogue stores. Pure data; no I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace modelcat::model {

// Something accepted but flagged (duplicate key, size mismatch, unknown type).
struct Warning {
    uint64_t offset;
    std::string message;
};

// GGUF value type names (also used for safetensors __metadata__ strings).
enum class ValueType : uint32_t {
    u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7,
    string = 8, array = 9, u64 = 10, i64 = 11, f64 = 12,
};
const char* value_type_name(ValueType t);

// An array's summary: stored as length, byte size and a content hash, with
// the values themselves as JSON only when small.
struct ArraySummary {
    ValueType element_type;
    uint64_t length = 0;
    uint64_t byte_size = 0;           // encoded size of the elements in the file
    uint64_t content_hash = 0;        // ContentHash over the canonical encoding
    std::optional<std::string> json;  // the values, when under the cap
    bool operator==(const ArraySummary&) const = default;
};

using MetadataValue = std::variant<int64_t, uint64_t, double, bool, std::string, ArraySummary>;

struct MetadataEntry {
    std::string key;
    ValueType type;
    MetadataValue value;
    uint64_t offset;  // where the key starts in the file
};

struct TensorInfo {
    std::string name;
    std::vector<uint64_t> dims;          // the file's own order (GGUF: ne[0] first)
    uint64_t n_elements = 0;
    std::optional<uint32_t> type_id;     // ggml id; none for safetensors
    std::string type_name;               // Q4_K, BF16, type_77 ...
    uint64_t offset = 0;                 // relative to the data start
    uint64_t bytes = 0;                  // measured: gap to the next tensor
    std::optional<uint64_t> expected_bytes;  // from the type table; none if unknown
    uint64_t info_offset = 0;            // where the descriptor starts in the file
};

enum class Format { gguf, safetensors, json };  // json: a checkpoint's index or config, an Ollama manifest
const char* format_name(Format f);

struct FileHeader {
    Format format = Format::gguf;
    uint32_t version = 0;          // GGUF version; 0 for safetensors
    bool big_endian = false;
    uint64_t file_size = 0;
    uint64_t header_bytes = 0;     // everything before tensor data, clamped to the file
    uint64_t data_start = 0;       // aligned start of tensor data (may exceed file_size)
    uint64_t parsed_bytes = 0;     // bytes the parser consumed: the header without alignment padding
    uint32_t alignment = 0;        // GGUF alignment used; 0 for safetensors
    uint64_t declared_kv_count = 0;
    std::vector<MetadataEntry> metadata;  // duplicates removed (first kept)
    std::vector<std::string> duplicate_keys;  // keys given again, in file order (dropped from metadata)
    std::vector<TensorInfo> tensors;      // in file order
    std::vector<Warning> warnings;
    uint64_t header_hash = 0;      // ContentHash of the first parsed_bytes bytes (the GGUF parser's runs beside its arrays')
};

// A metadata value by key, when it is an integer or a string (nullopt otherwise).
std::optional<int64_t> metadata_integer(const FileHeader& h, std::string_view key);
std::optional<std::string> metadata_string(const FileHeader& h, std::string_view key);

}  // namespace modelcat::model
