// Over 500 lines: one parser, whose every check names its offset, field and limit over one cursor; split, the checks would lose the state they share.
#include "format/gguf.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "format/byte_cursor.hpp"
#include "format/gguf_estimate.hpp"
#include "format/json_text.hpp"
#include "format/likely_cause.hpp"
#include "format/parse_result.hpp"
#include "model/content_hash.hpp"
#include "model/error.hpp"
#include "model/ggml_types.hpp"
#include "model/limits.hpp"
#include "model/utf8.hpp"

namespace modelcat::format {

namespace {

constexpr uint64_t kMinKvBytes = 8 + 4 + 1;            // empty key, type, one-byte value (v1 smaller, still a bound)
constexpr uint64_t kMinTensorInfoBytes = 4 + 4 + 4 + 8;  // name length, n_dims, type, offset (v1)
constexpr uint32_t kMaxDims = 4;                         // GGML_MAX_DIMS

uint32_t scalar_size(model::ValueType t) {
    switch (t) {
        case model::ValueType::u8: case model::ValueType::i8: case model::ValueType::boolean: return 1;
        case model::ValueType::u16: case model::ValueType::i16: return 2;
        case model::ValueType::u32: case model::ValueType::i32: case model::ValueType::f32: return 4;
        case model::ValueType::u64: case model::ValueType::i64: case model::ValueType::f64: return 8;
        default: return 0;
    }
}

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

class GgufParser {
public:
    GgufParser(std::span<const uint8_t> prefix, uint64_t file_size, const model::Limits& limits)
        : cur_(prefix, file_size), limits_(limits) {}

    model::FileHeader parse();
    const GgufProgress& progress() const { return progress_; }
    const std::vector<model::MetadataEntry>& metadata_so_far() const { return h_.metadata; }
    uint64_t pos() const { return cur_.pos(); }

private:
    uint64_t read_count(std::string_view what) {
        return version_ == 1 ? cur_.read<uint32_t>(what) : cur_.read<uint64_t>(what);
    }
    std::string read_string(std::string_view what);
    std::string_view read_string_view(std::string_view what);
    // Out of line: the element loop stays small.
    [[noreturn, gnu::noinline, gnu::cold]] void string_too_long(uint64_t start, uint64_t n, std::string_view what) const;
    void skip_string(model::ContentHash* hash, std::string* json);
    bool hashed_in_place(model::ValueType element_type) const;
    model::ValueType read_type(std::string_view what);
    model::MetadataValue read_value(model::ValueType t);
    model::ArraySummary read_array(uint32_t depth, model::ContentHash& hash, std::string* json);
    void read_elements(const model::ArraySummary& a, uint32_t depth, model::ContentHash& hash, std::string*& out, bool outer);
    void drop_json(std::string*& out) {
        std::string().swap(*out);
        out = nullptr;
        json_dropped_ = true;
    }
    bool kept_key(std::string_view key) const;
    // Where the outermost array stands, for the estimate if the bytes run out.
    void note_element(uint64_t i) {
        progress_.array_done = i;
        if (i >= 64 && (i & (i - 1)) == 0) progress_.mark_pos[std::countr_zero(i)] = cur_.pos();
    }
    void read_scalar_into(model::ValueType t, model::ContentHash* hash, std::string* json);
    void read_preamble();
    void read_metadata();
    void read_tensor_info(std::unordered_set<std::string>& names);
    void check_alignment(const model::MetadataEntry& e);
    void measure_tensors();
    std::string truncation() const;

    void hash_header_to(uint64_t end);

    ByteCursor cur_;
    const model::Limits& limits_;
    GgufProgress progress_;
    model::FileHeader h_;
    uint32_t version_ = 0;
    model::ContentHash header_hash_;     // of the bytes before header_hashed_
    uint64_t header_hashed_ = 0;
    bool keep_values_ = false;   // the current key is one of limits_.kept_arrays
    uint64_t json_budget_ = 0;   // the outermost array's JSON, nested arrays' included, may grow to this
    bool json_dropped_ = false;  // it outgrew the budget: every level goes on as hash only
};

bool GgufParser::kept_key(std::string_view key) const {
    for (const auto& suffix : limits_.kept_arrays)
        if (key.ends_with(suffix)) return true;
    return false;
}

std::string GgufParser::read_string(std::string_view what) {
    std::string_view v = read_string_view(what);
    return std::string(v);
}

// The string's bytes in place: a 128,256-token array costs no allocation.
std::string_view GgufParser::read_string_view(std::string_view what) {
    uint64_t start = cur_.pos();
    uint64_t n = read_count(what);
    if (n > limits_.max_string_bytes || n > cur_.remaining_in_file()) [[unlikely]] string_too_long(start, n, what);
    auto b = cur_.bytes(n, what);
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

void GgufParser::string_too_long(uint64_t start, uint64_t n, std::string_view what) const {
    throw model::FormatError(start, std::string(what) + ": string length " + std::to_string(n) + " exceeds " +
                                 (n > cur_.remaining_in_file()
                                      ? "the bytes left in the file (" + std::to_string(cur_.remaining_in_file()) + ")"
                                      : "the cap of " + std::to_string(limits_.max_string_bytes)));
}

model::ValueType GgufParser::read_type(std::string_view what) {
    uint64_t at = cur_.pos();
    uint32_t t = cur_.read<uint32_t>(what);
    if (t > static_cast<uint32_t>(model::ValueType::f64))
        throw model::FormatError(at, std::string(what) + ": value type " + std::to_string(t) + " is not a GGUF type (0-12)");
    return static_cast<model::ValueType>(t);
}

void GgufParser::read_scalar_into(model::ValueType t, model::ContentHash* hash, std::string* json) {
    uint32_t n = scalar_size(t);
    cur_.require(n, "array element");
    uint64_t u = 0;
    double d = 0;
    int64_t i = 0;
    switch (t) {
        case model::ValueType::u8: u = cur_.read<uint8_t>("u8"); break;
        case model::ValueType::i8: i = cur_.read<int8_t>("i8"); break;
        case model::ValueType::u16: u = cur_.read<uint16_t>("u16"); break;
        case model::ValueType::i16: i = cur_.read<int16_t>("i16"); break;
        case model::ValueType::u32: u = cur_.read<uint32_t>("u32"); break;
        case model::ValueType::i32: i = cur_.read<int32_t>("i32"); break;
        case model::ValueType::f32: d = cur_.read<float>("f32"); break;
        case model::ValueType::boolean: u = cur_.read<uint8_t>("bool"); break;
        case model::ValueType::u64: u = cur_.read<uint64_t>("u64"); break;
        case model::ValueType::i64: i = cur_.read<int64_t>("i64"); break;
        case model::ValueType::f64: d = cur_.read<double>("f64"); break;
        default: break;
    }
    // canonical little-endian bytes of the element, whatever the file's order
    uint64_t raw = t == model::ValueType::f32   ? std::bit_cast<uint32_t>(static_cast<float>(d))
                   : t == model::ValueType::f64 ? std::bit_cast<uint64_t>(d)
                   : (t == model::ValueType::i8 || t == model::ValueType::i16 || t == model::ValueType::i32 || t == model::ValueType::i64)
                       ? static_cast<uint64_t>(i)
                       : u;
    uint8_t b[8];
    for (uint32_t k = 0; k < n; ++k) b[k] = static_cast<uint8_t>(raw >> (8 * k));
    if (hash) hash->update({b, n});
    if (!json) return;
    if (!json->empty() && json->back() != '[') *json += ',';
    if (t == model::ValueType::f32 || t == model::ValueType::f64) *json += json_number(d);
    else if (t == model::ValueType::boolean) *json += u ? "true" : "false";
    else if (t == model::ValueType::i8 || t == model::ValueType::i16 || t == model::ValueType::i32 || t == model::ValueType::i64) *json += std::to_string(i);
    else *json += std::to_string(u);
}

void GgufParser::skip_string(model::ContentHash* hash, std::string* json) {
    std::string_view s = read_string_view("string element");
    if (hash) {
        hash->update_u64le(s.size());
        hash->update({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
    }
    if (!json) return;
    if (json->size() + s.size() > json_budget_) {  // before its copy: one string may be the 64 MiB cap
        json_dropped_ = true;
        return;
    }
    if (!json->empty() && json->back() != '[') *json += ',';
    append_json_string(*json, s);
}

// Whether an array's elements, as the file holds them, are the hash's canonical
// little-endian encoding, so the array is hashed as one span (a 128,256-token
// vocabulary in one call, not two per token): the same digest either way. Not
// so for big-endian files, v1 strings (32-bit lengths, hashed as 64) and nested
// arrays (32-bit element types). f32 elements are their own bits: an optimised
// build reads and rewrites them without a conversion (a signaling NaN stays one).
bool GgufParser::hashed_in_place(model::ValueType element_type) const {
    if (h_.big_endian || element_type == model::ValueType::array) return false;
    return element_type != model::ValueType::string || version_ >= 2;
}

// Labels are fixed text: parse() adds the key once, on error, so a long
// key costs nothing per element.
model::ArraySummary GgufParser::read_array(uint32_t depth, model::ContentHash& hash, std::string* json) {
    uint64_t at = cur_.pos();
    if (depth > limits_.max_nesting)
        throw model::FormatError(at, "arrays nested deeper than the cap of " + std::to_string(limits_.max_nesting));
    model::ArraySummary a;
    a.element_type = read_type("array element type");
    uint64_t count_at = cur_.pos();
    a.length = read_count("array length");
    uint64_t min_elem = a.element_type == model::ValueType::string  ? (version_ == 1 ? 4 : 8)
                        : a.element_type == model::ValueType::array ? 4 + (version_ == 1 ? 4 : 8)
                                                             : scalar_size(a.element_type);
    if (a.length > limits_.max_array_length)
        throw model::FormatError(count_at, "array length " + std::to_string(a.length) +
                                        " exceeds the cap of " + std::to_string(limits_.max_array_length));
    if (a.length > cur_.remaining_in_file() / min_elem)
        throw model::FormatError(count_at, "array of " + std::to_string(a.length) + " " +
                                        model::value_type_name(a.element_type) + " needs at least " +
                                        std::to_string(a.length * min_elem) + " bytes but " +
                                        std::to_string(cur_.remaining_in_file()) + " remain in the file");
    hash.update_u64le(static_cast<uint64_t>(a.element_type));
    hash.update_u64le(a.length);
    bool outer = depth == 1;
    if (outer) {
        progress_.in_array = true;
        progress_.array_start = cur_.pos();
        progress_.array_length = a.length;
        progress_.array_done = 0;
    }
    std::string local_json;
    std::string* out = json;
    if (outer) {
        const bool short_array = a.length <= limits_.array_json_cap;
        json_budget_ = std::max(short_array ? limits_.array_json_bytes : 0, keep_values_ ? limits_.kept_json_bytes : 0);
        json_dropped_ = false;
        out = json_budget_ > 0 ? &local_json : nullptr;
    }
    if (out) *out += '[';
    uint64_t elems_start = cur_.pos();
    read_elements(a, depth, hash, out, outer);
    if (out) *out += ']';
    a.byte_size = cur_.pos() - elems_start;
    if (outer) {
        progress_.in_array = false;
        if (progress_.key == "tokenizer.ggml.tokens") progress_.tokens = {true, a.length, elems_start, cur_.pos(), progress_.mark_pos};
        a.content_hash = hash.digest();
        if (out) a.json = std::move(local_json);
    }
    return a;
}

// One loop per element kind, so that stepping over a vocabulary is a few instructions
// per string: elements hashed in place and kept as no JSON are only bounds-checked.
// An array whose JSON outgrows its budget, at any depth, goes on as hash only (`out` becomes null at every level).
void GgufParser::read_elements(const model::ArraySummary& a, uint32_t depth, model::ContentHash& hash, std::string*& out, bool outer) {
    model::ContentHash* per_element = hashed_in_place(a.element_type) ? nullptr : &hash;
    auto each = [&](auto&& read_one) {
        for (uint64_t i = 0; i < a.length; ++i) {
            if (outer) note_element(i);
            read_one();
            if (out && (json_dropped_ || out->size() > json_budget_)) [[unlikely]] drop_json(out);
        }
    };
    const uint64_t start = cur_.pos();
    const bool skip = !per_element && !out;
    if (a.element_type == model::ValueType::string && skip) {  // in place: a little-endian v2/v3 file
        each([&] {
            if (!cur_.skip_le_string(limits_.max_string_bytes)) read_string_view("string element");
        });
    } else if (a.element_type == model::ValueType::string) {
        each([&] { skip_string(per_element, out); });
    } else if (a.element_type == model::ValueType::array) {
        each([&] {
            if (out && out->back() != '[') *out += ',';
            read_array(depth + 1, hash, out);
        });
    } else if (skip) {  // fixed-size elements: all at once when they are all here (length was checked against the file)
        const uint32_t n = scalar_size(a.element_type);
        if (!cur_.skip_if_here(a.length * n)) each([&] { cur_.bytes(n, "array element"); });
    } else {
        each([&] { read_scalar_into(a.element_type, per_element, out); });
    }
    if (!per_element) {
        hash_header_to(start);
        model::ContentHash::update_both(header_hash_, hash, cur_.since(start));
        header_hashed_ = cur_.pos();
    }
}

// The header's hash runs along the parse, so that an array hashed in place feeds both at once.
void GgufParser::hash_header_to(uint64_t end) {
    header_hash_.update(cur_.since(header_hashed_).first(end - header_hashed_));
    header_hashed_ = end;
}

model::MetadataValue GgufParser::read_value(model::ValueType t) {
    switch (t) {
        case model::ValueType::u8: return uint64_t{cur_.read<uint8_t>("u8 value")};
        case model::ValueType::i8: return int64_t{cur_.read<int8_t>("i8 value")};
        case model::ValueType::u16: return uint64_t{cur_.read<uint16_t>("u16 value")};
        case model::ValueType::i16: return int64_t{cur_.read<int16_t>("i16 value")};
        case model::ValueType::u32: return uint64_t{cur_.read<uint32_t>("u32 value")};
        case model::ValueType::i32: return int64_t{cur_.read<int32_t>("i32 value")};
        case model::ValueType::f32: return double{cur_.read<float>("f32 value")};
        case model::ValueType::boolean: return cur_.read<uint8_t>("bool value") != 0;
        case model::ValueType::string: return read_string("string value");
        case model::ValueType::array: {
            model::ContentHash hash;
            return read_array(1, hash, nullptr);
        }
        case model::ValueType::u64: return cur_.read<uint64_t>("u64 value");
        case model::ValueType::i64: return cur_.read<int64_t>("i64 value");
        case model::ValueType::f64: return cur_.read<double>("f64 value");
    }
    return uint64_t{0};
}

void GgufParser::check_alignment(const model::MetadataEntry& e) {
    if (e.type != model::ValueType::u32)
        throw model::FormatError(e.offset, std::string("general.alignment has type ") + model::value_type_name(e.type) +
                                        ", expected uint32");
    uint64_t a = std::get<uint64_t>(e.value);
    if (a == 0 || (a & (a - 1)) != 0)
        throw model::FormatError(e.offset, "general.alignment " + std::to_string(a) + " is not a power of two");
    if (a > limits_.max_alignment)
        throw model::FormatError(e.offset, "general.alignment " + std::to_string(a) + " exceeds the cap of " +
                                        std::to_string(limits_.max_alignment));
    h_.alignment = static_cast<uint32_t>(a);
}

void GgufParser::read_tensor_info(std::unordered_set<std::string>& names) {
    model::TensorInfo t;
    t.info_offset = cur_.pos();
    t.name = read_string("tensor name");
    if (t.name.empty()) throw model::FormatError(t.info_offset, "tensor " + std::to_string(progress_.tensors_done) + " has an empty name");
    model::require_utf8(t.name, t.info_offset + (version_ == 1 ? 4 : 8), "tensor " + std::to_string(progress_.tensors_done) + "'s name");
    uint64_t dims_at = cur_.pos();
    uint32_t n_dims = cur_.read<uint32_t>("n_dims");
    if (n_dims > kMaxDims)
        throw model::FormatError(dims_at, "tensor '" + t.name + "': n_dims " + std::to_string(n_dims) +
                                       " exceeds ggml's limit of " + std::to_string(kMaxDims));
    t.n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
        uint64_t at = cur_.pos();
        uint64_t v = version_ == 1 ? cur_.read<uint32_t>("dimension") : cur_.read<uint64_t>("dimension");
        if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            throw model::FormatError(at, "tensor '" + t.name + "': dimension " + std::to_string(d) + " is negative (" +
                                      std::to_string(static_cast<int64_t>(v)) + ")");
        if (v != 0 && t.n_elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / v)
            throw model::FormatError(at, "tensor '" + t.name + "': the product of its dimensions overflows int64");
        t.n_elements *= v;
        t.dims.push_back(v);
    }
    uint64_t type_at = cur_.pos();
    uint32_t type = cur_.read<uint32_t>("tensor type");
    t.type_id = type;
    t.type_name = model::ggml_type_name(type);
    const model::GgmlType* gt = model::find_ggml_type(type);
    if (!gt) {
        h_.warnings.push_back({type_at, "tensor '" + t.name + "': unknown ggml type id " + std::to_string(type) +
                                            " (kept; size measured from offsets)"});
    } else if (t.n_elements % gt->block_size != 0) {
        throw model::FormatError(type_at, "tensor '" + t.name + "': " + std::to_string(t.n_elements) +
                                       " elements are not a whole number of " + std::string(gt->name) +
                                       " blocks of " + std::to_string(gt->block_size));
    } else if (!t.dims.empty() && t.dims[0] % gt->block_size != 0) {
        h_.warnings.push_back({dims_at, "tensor '" + t.name + "': ne[0] = " + std::to_string(t.dims[0]) +
                                            " is not a multiple of the " + std::string(gt->name) +
                                            " block size " + std::to_string(gt->block_size)});
    }
    t.expected_bytes = model::ggml_expected_bytes(type, t.n_elements);
    if (gt && !t.expected_bytes)  // CVE-2024-21802's kind: a byte size that wraps
        throw model::FormatError(type_at, "tensor '" + t.name + "': " + std::to_string(t.n_elements) + " " +
                                       std::string(gt->name) + " elements take more than 2^64 bytes");
    t.offset = cur_.read<uint64_t>("tensor offset");
    if (!names.insert(t.name).second)
        throw model::FormatError(t.info_offset, "duplicate tensor name '" + t.name + "'");
    h_.tensors.push_back(std::move(t));
}

// Sizes come from the gaps between offsets (the last: to the end of the file);
// the type table's size is the check, not the source.
// "truncated: 4096 of 8192 bytes; " when the tensors' data ends past the file (an interrupted
// download), counted from where the last tensor ends; "" when an offset is absurd instead.
std::string GgufParser::truncation() const {
    uint64_t end = h_.data_start;
    for (const auto& t : h_.tensors) {
        uint64_t need = t.expected_bytes.value_or(0);
        const uint64_t room = std::numeric_limits<uint64_t>::max() - h_.data_start;
        if (need > room || t.offset > room - need) return "";
        end = std::max(end, h_.data_start + t.offset + need);
    }
    return "truncated: " + std::to_string(h_.file_size) + " of " + std::to_string(end) + " bytes; ";
}

void GgufParser::measure_tensors() {
    const uint64_t data_bytes = h_.file_size > h_.data_start ? h_.file_size - h_.data_start : 0;
    uint64_t prev_end = 0;
    for (size_t i = 0; i < h_.tensors.size(); ++i) {
        model::TensorInfo& t = h_.tensors[i];
        if (t.offset % h_.alignment != 0)
            throw model::FormatError(t.info_offset, "tensor '" + t.name + "': offset " + std::to_string(t.offset) +
                                                 " is not a multiple of the alignment " + std::to_string(h_.alignment));
        if (i > 0 && t.offset < h_.tensors[i - 1].offset)
            throw model::FormatError(t.info_offset, "tensor '" + t.name + "': offset " + std::to_string(t.offset) +
                                                 " is before the previous tensor's " +
                                                 std::to_string(h_.tensors[i - 1].offset) + " (out of order)");
        if (t.offset < prev_end)
            throw model::FormatError(t.info_offset, "tensor '" + t.name + "': data at offset " + std::to_string(t.offset) +
                                                 " overlaps the previous tensor, which ends at " +
                                                 std::to_string(prev_end));
        uint64_t need = t.expected_bytes.value_or(0);
        if (t.offset > data_bytes || need > data_bytes - t.offset)
            throw model::FormatError(t.info_offset, truncation() + "tensor '" + t.name + "': " + std::to_string(need) + " bytes at offset " +
                                                 std::to_string(t.offset) + " lie past the end of the data (" +
                                                 std::to_string(data_bytes) + " bytes after the data start " +
                                                 std::to_string(h_.data_start) + ")");
        prev_end = t.offset + need;
    }
    for (size_t i = 0; i < h_.tensors.size(); ++i) {
        model::TensorInfo& t = h_.tensors[i];
        uint64_t next = i + 1 < h_.tensors.size() ? h_.tensors[i + 1].offset : data_bytes;
        t.bytes = next - t.offset;
        if (t.expected_bytes && t.bytes > align_up(*t.expected_bytes, h_.alignment))
            h_.warnings.push_back({t.info_offset, "tensor '" + t.name + "': measured " + std::to_string(t.bytes) +
                                                      " bytes, the " + t.type_name + " table says " +
                                                      std::to_string(*t.expected_bytes)});
    }
}

// Magic, version (and byte order), and the two counts, checked against the file and the caps.
void GgufParser::read_preamble() {
    auto magic = cur_.bytes(4, "magic");
    if (std::string_view(reinterpret_cast<const char*>(magic.data()), 4) != "GGUF") {
        // another format's magic ("GGML", "GGJT") is shown; other bytes may be anyone's secret
        const bool printable = std::all_of(magic.begin(), magic.end(), [](uint8_t c) { return std::isalnum(c); });
        std::string shown;
        append_json_string(shown, std::string_view(reinterpret_cast<const char*>(magic.data()), 4));
        const std::string magic_shown = printable ? " (magic " + shown + ")" : "";
        if (auto cause = likely_cause(magic)) throw model::FormatError(0, "not a GGUF file: " + *cause + magic_shown);
        throw model::FormatError(0, printable ? "not a GGUF file: magic " + shown + ", expected \"GGUF\"" : "not a GGUF file");
    }
    uint32_t v = cur_.read<uint32_t>("version");
    if (v < 1 || v > 3) {
        uint32_t swapped = byteswap(v);
        if (swapped < 1 || swapped > 3)
            throw model::FormatError(4, "unsupported GGUF version " + std::to_string(v) + " (expected 1, 2 or 3, either byte order)");
        v = swapped;
        h_.big_endian = true;
        cur_.set_big_endian(true);
    }
    version_ = h_.version = v;
    uint64_t tc_at = cur_.pos();
    uint64_t tensor_count = read_count("tensor_count");
    uint64_t kc_at = cur_.pos();
    uint64_t kv_count = h_.declared_kv_count = read_count("kv_count");
    if (tensor_count > limits_.max_tensors || tensor_count > cur_.remaining_in_file() / kMinTensorInfoBytes)
        throw model::FormatError(tc_at, "tensor_count " + std::to_string(tensor_count) +
                                     " cannot fit in the file (" + std::to_string(h_.file_size) +
                                     " bytes) or exceeds the cap of " + std::to_string(limits_.max_tensors));
    if (kv_count > limits_.max_metadata_entries || kv_count > cur_.remaining_in_file() / kMinKvBytes)
        throw model::FormatError(kc_at, "kv_count " + std::to_string(kv_count) + " cannot fit in the file (" +
                                     std::to_string(h_.file_size) + " bytes) or exceeds the cap of " +
                                     std::to_string(limits_.max_metadata_entries));
    // only checked counts feed the estimate
    progress_.tensor_count = tensor_count;
    progress_.kv_count = kv_count;
}

// Every key and value; a duplicate key keeps the first value, with a warning.
void GgufParser::read_metadata() {
    std::unordered_map<std::string, size_t> seen;
    for (; progress_.kv_done < progress_.kv_count; ++progress_.kv_done) {
        model::MetadataEntry e;
        e.offset = cur_.pos();
        e.key = read_string("metadata key " + std::to_string(progress_.kv_done));
        if (e.key.empty()) throw model::FormatError(e.offset, "metadata key " + std::to_string(progress_.kv_done) + " is empty");
        model::require_utf8(e.key, e.offset + (version_ == 1 ? 4 : 8), "metadata key " + std::to_string(progress_.kv_done));
        progress_.key = e.key;
        e.type = read_type("type of '" + e.key + "'");
        keep_values_ = e.type == model::ValueType::array && kept_key(e.key);
        try {
            e.value = read_value(e.type);
        } catch (const model::FormatError& err) {
            throw model::FormatError(err.offset(), "key '" + e.key + "': " + err.what());
        }
        if (auto w = model::escape_string_value(e)) h_.warnings.push_back(std::move(*w));
        if (auto it = seen.find(e.key); it != seen.end()) {
            const model::MetadataEntry& kept = h_.metadata[it->second];
            bool same = kept.type == e.type && kept.value == e.value;
            h_.warnings.push_back({e.offset, "duplicate key '" + e.key + "' (first value kept" +
                                                 (same ? ", same value)" : ", this one differs)")});
            h_.duplicate_keys.push_back(e.key);
            continue;
        }
        if (e.key == "general.alignment") check_alignment(e);
        seen.emplace(e.key, h_.metadata.size());
        h_.metadata.push_back(std::move(e));
    }
}

model::FileHeader GgufParser::parse() {
    h_.format = model::Format::gguf;
    h_.file_size = cur_.file_size();
    read_preamble();
    h_.alignment = kGgufDefaultAlignment;
    read_metadata();
    std::unordered_set<std::string> names;
    progress_.tensors_start = cur_.pos();
    for (; progress_.tensors_done < progress_.tensor_count; ++progress_.tensors_done) read_tensor_info(names);

    h_.parsed_bytes = cur_.pos();
    hash_header_to(h_.parsed_bytes);
    h_.header_hash = header_hash_.digest();
    h_.data_start = align_up(cur_.pos(), h_.alignment);
    // vocab-only files may end before the aligned data start
    h_.header_bytes = std::min(h_.data_start, h_.file_size);
    if (h_.data_start > limits_.max_header_bytes)
        throw model::FormatError(cur_.pos(), "header of " + std::to_string(h_.data_start) + " bytes exceeds the cap of " +
                                          std::to_string(limits_.max_header_bytes));
    if (!h_.tensors.empty() && h_.data_start > h_.file_size)
        throw model::FormatError(cur_.pos(), "tensor data would start at " + std::to_string(h_.data_start) +
                                          " but the file ends at " + std::to_string(h_.file_size));
    measure_tensors();
    return std::move(h_);
}

}  // namespace

bool looks_like_gguf(std::span<const uint8_t> prefix) {
    return prefix.size() >= 4 && std::equal(prefix.begin(), prefix.begin() + 4, "GGUF");
}

ParseResult parse_gguf(std::span<const uint8_t> prefix, uint64_t file_size, const model::Limits& limits) {
    GgufParser p(prefix, file_size, limits);
    try {
        return p.parse();
    } catch (const OutOfBytes& o) {
        if (o.needed_end > limits.max_header_bytes)
            throw model::FormatError(p.pos(), "header needs more than the cap of " + std::to_string(limits.max_header_bytes) +
                                           " bytes");
        // a header past the cap is an error anyway: never ask the caller to read more
        HeaderEstimate e = estimate_gguf_header(p.progress(), p.metadata_so_far(), p.pos(), o.needed_end);
        const uint64_t cap = std::min(file_size, limits.max_header_bytes);
        return NeedMore{o.needed_end, std::min(cap, e.generous), std::min(cap, e.likely)};
    }
}

}  // namespace modelcat::format
