#pragma once
// A GGUF writer for tests: versions 1-3, either byte order, any value type,
// and escape hatches (raw KVs, explicit offsets, wrong counts) for hostile files.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "file_out.hpp"
#include "model/header.hpp"

namespace modelcat::kit {

// GGUF metadata value type ids, as stored in the file.
enum class GgufType : uint32_t {
    u8 = 0,
    i8 = 1,
    u16 = 2,
    i16 = 3,
    u32 = 4,
    i32 = 5,
    f32 = 6,
    boolean = 7,
    string = 8,
    array = 9,
    u64 = 10,
    i64 = 11,
    f64 = 12,
};

enum class Endian { little, big };

// ggml type ids the kit's files use most (src/format/ggml_types.def has them all).
inline constexpr uint32_t kF32 = 0, kF16 = 1, kQ8_0 = 8, kQ4_K = 12, kBf16 = 30;

class GgufEncoder;

// One metadata value: a scalar, a string or an array (arrays may nest).
class GgufValue {
public:
    static GgufValue u8(uint8_t v);
    static GgufValue i8(int8_t v);
    static GgufValue u16(uint16_t v);
    static GgufValue i16(int16_t v);
    static GgufValue u32(uint32_t v);
    static GgufValue i32(int32_t v);
    static GgufValue f32(float v);
    static GgufValue boolean(bool v);
    static GgufValue u64(uint64_t v);
    static GgufValue i64(int64_t v);
    static GgufValue f64(double v);
    static GgufValue str(std::string v);
    // Every element must have type `elem`; throws std::invalid_argument otherwise.
    static GgufValue array(GgufType elem, std::vector<GgufValue> elems);
    // Fast paths for the big tokenizer arrays.
    static GgufValue string_array(std::vector<std::string> v);
    static GgufValue i32_array(const std::vector<int32_t>& v);

    GgufType type() const { return type_; }
    // Bytes this value occupies after its type id, in a file of `version`.
    uint64_t encoded_size(uint32_t version) const;

private:
    friend class GgufEncoder;
    explicit GgufValue(GgufType t) : type_(t) {}
    static GgufValue scalar(GgufType t, uint64_t bits);

    GgufType type_;
    uint64_t bits_ = 0;                 // scalar payload: the value's bit pattern
    std::string text_;                  // string payload
    GgufType elem_ = GgufType::u8;      // array element type
    std::vector<uint64_t> scalars_;     // array of scalars (bit patterns)
    std::vector<std::string> strings_;  // array of strings
    std::vector<GgufValue> arrays_;     // array of arrays
};

// A tensor descriptor as written, with the byte size the writer assumed for it.
struct GgufTensorInfo {
    std::string name;
    std::vector<uint64_t> dims;  // ne[0] first
    uint32_t type;
    uint64_t offset;  // relative to data_start()
    uint64_t bytes;
};

class GgufWriter {
public:
    // Version 1 writes counts, string/array lengths and dims as uint32; later ones as uint64.
    explicit GgufWriter(uint32_t version = 3, Endian endian = Endian::little);

    // Padding used for tensor offsets and the data start; writes no KV by itself.
    void set_alignment(uint64_t n);

    // KVs are written in call order; duplicate keys are kept.
    void add_kv(std::string key, GgufValue value);
    // Writes `payload` verbatim after the key and `type_id` (e.g. an unknown id 13).
    void add_raw_kv(std::string key, uint32_t type_id, std::vector<uint8_t> payload);
    // The value (and type) of the first KV named `key`, in its place; throws std::invalid_argument when there is none.
    void replace_kv(const std::string& key, GgufValue value);

    // Offset = running data size rounded up to the alignment in force now. `bytes`
    // is required when the type is unknown or dims are not whole blocks.
    void add_tensor(std::string name, std::vector<uint64_t> dims, uint32_t type,
                    std::optional<uint64_t> bytes = std::nullopt);
    // Explicit offset, unchecked: for overlaps, disorder, misalignment.
    void add_tensor_at(std::string name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset,
                       std::optional<uint64_t> bytes = std::nullopt);

    // Counts written in the prologue instead of the real ones.
    void override_tensor_count(uint64_t n) { tensor_count_override_ = n; }
    void override_kv_count(uint64_t n) { kv_count_override_ = n; }

    uint32_t version() const { return version_; }
    uint64_t alignment() const { return alignment_; }
    size_t kv_count() const { return kvs_.size(); }
    const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }

    // File offsets of what the writer produces, for asserting parser error offsets.
    uint64_t kv_offset(size_t i) const;           // start of KV i (its key length)
    uint64_t metadata_end() const;                // end of the last KV
    uint64_t tensor_info_offset(size_t i) const;  // start of tensor info i (its name length)
    uint64_t header_end() const;                  // end of the last tensor info
    uint64_t data_start() const;                  // header_end() rounded up to the alignment
    uint64_t data_bytes() const;                  // furthest tensor end, no trailing padding
    uint64_t file_size() const { return data_start() + data_bytes(); }

    // Everything up to data_start(): prologue, KVs, tensor infos, zero padding.
    std::vector<uint8_t> header() const;
    void write(const std::filesystem::path& path, DataMode mode = DataMode::sparse) const;
    // Only the bytes up to header_end(), no padding and no data: how real vocab-only files end.
    void write_header_only(const std::filesystem::path& path) const;

private:
    struct Kv {
        std::string key;
        uint32_t type_id;
        std::variant<GgufValue, std::vector<uint8_t>> value;  // raw bytes for add_raw_kv
        uint64_t size;                                        // encoded bytes, key included
    };
    uint64_t count_width() const { return version_ == 1 ? 4 : 8; }
    uint64_t prologue_size() const { return 8 + 2 * count_width(); }
    uint64_t tensor_info_size(const GgufTensorInfo& t) const;
    std::vector<uint8_t> encode_until_header_end() const;

    uint32_t version_;
    Endian endian_;
    uint64_t alignment_ = 32;
    std::vector<Kv> kvs_;
    std::vector<GgufTensorInfo> tensors_;
    std::optional<uint64_t> tensor_count_override_;
    std::optional<uint64_t> kv_count_override_;
};

// The writer's header as modelcat's GGUF parser reads it (its bytes, and the file's size);
// throws when the parser does not return a header.
model::FileHeader parse_header(const GgufWriter& w);

}  // namespace modelcat::kit
