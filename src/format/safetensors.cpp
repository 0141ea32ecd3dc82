#include "format/safetensors.hpp"

#include <simdjson.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <unordered_set>

#include "format/byte_cursor.hpp"
#include "format/likely_cause.hpp"
#include "format/parse_result.hpp"
#include "model/content_hash.hpp"
#include "model/error.hpp"
#include "model/limits.hpp"

namespace modelcat::format {

namespace {

struct Dtype {
    std::string_view name;
    uint32_t bits;
};
constexpr Dtype kDtypes[] = {
    {"BOOL", 8},     {"U8", 8},      {"I8", 8},       {"F8_E4M3", 8},  {"F8_E5M2", 8},  {"F8_E8M0", 8},
    {"U16", 16},     {"I16", 16},    {"F16", 16},     {"BF16", 16},    {"U32", 32},     {"I32", 32},
    {"F32", 32},     {"U64", 64},    {"I64", 64},     {"F64", 64},     {"C64", 64},     {"F4", 4},
    {"F6_E2M3", 6},  {"F6_E3M2", 6},
};

// Offsets in `json` of the keys of the object that opens at `open`, in order.
// One linear pass: the text is valid JSON (simdjson accepted it), so a string
// that follows the object's '{' or one of its commas is a key.
std::vector<uint64_t> key_offsets(std::string_view json, size_t open) {
    std::vector<uint64_t> keys;
    int depth = 0;
    bool key_next = false;
    for (size_t i = open; i < json.size(); ++i) {
        char c = json[i];
        if (c == '"') {
            if (key_next) keys.push_back(i);
            key_next = false;
            for (++i; i < json.size() && json[i] != '"'; ++i)
                if (json[i] == '\\') ++i;
        } else if (c == '{' || c == '[') {
            key_next = ++depth == 1;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) break;
        } else if (c == ',') {
            key_next = depth == 1;
        }
    }
    return keys;
}

class SafetensorsParser {
public:
    SafetensorsParser(std::string_view json, uint64_t file_size, const model::Limits& limits)
        : json_(json), file_size_(file_size), limits_(limits) {}
    model::FileHeader parse();

private:
    // `offset` is where the tensor's key starts in the file.
    [[noreturn]] static void fail(uint64_t offset, std::string_view name, const std::string& msg) {
        throw model::FormatError(offset, "tensor '" + std::string(name) + "': " + msg);
    }
    void read_metadata(simdjson::dom::element value, uint64_t key_offset);
    void read_tensor(std::string_view name, simdjson::dom::element value, uint64_t offset);
    void check_layout();

    std::string_view json_;
    uint64_t file_size_;
    const model::Limits& limits_;
    model::FileHeader h_;
    std::vector<uint64_t> ends_;  // data_offsets[1] of each tensor, in h_.tensors order
};

void SafetensorsParser::read_metadata(simdjson::dom::element value, uint64_t key_offset) {
    if (value.is_null()) return;
    simdjson::dom::object obj;
    if (value.get_object().get(obj)) throw model::FormatError(key_offset, "__metadata__ must be an object or null");
    if (obj.size() > limits_.max_metadata_entries)  // before an entry is made for any
        throw model::FormatError(key_offset, "__metadata__ has more than the cap of " + std::to_string(limits_.max_metadata_entries) + " keys");
    // the value's '{' is the first after the key: a key's raw text holds none
    const std::vector<uint64_t> at = key_offsets(json_, json_.find('{', key_offset - 8));
    std::unordered_set<std::string_view> seen;
    size_t i = 0;
    for (auto field : obj) {
        const uint64_t offset = 8 + at.at(i++);
        if (!seen.insert(field.key).second) {  // like GGUF: first value kept
            h_.warnings.push_back({offset, "duplicate __metadata__ key '" + std::string(field.key) + "' (first value kept)"});
            continue;
        }
        model::MetadataEntry e;
        e.key = std::string(field.key);
        e.type = model::ValueType::string;
        e.offset = offset;
        std::string_view s;
        if (field.value.get_string().get(s) == simdjson::SUCCESS) e.value = std::string(s);
        else e.value = simdjson::to_string(field.value);  // the format says strings; keep others as JSON text
        h_.metadata.push_back(std::move(e));
    }
}

void SafetensorsParser::read_tensor(std::string_view name, simdjson::dom::element value, uint64_t offset) {
    simdjson::dom::object obj;
    if (value.get_object().get(obj)) fail(offset, name, "entry is not an object");
    // simdjson's lookup takes the first of two same keys: an entry that says two things is refused, not read one way
    for (std::string_view field : {"dtype", "shape", "data_offsets"}) {
        size_t times = 0;
        for (auto f : obj) times += f.key == field;
        if (times > 1) fail(offset, name, "duplicate \"" + std::string(field) + "\"");
    }
    std::string_view dtype;
    if (obj["dtype"].get_string().get(dtype)) fail(offset, name, "missing or non-string \"dtype\"");
    simdjson::dom::array shape, offsets;
    if (obj["shape"].get_array().get(shape)) fail(offset, name, "missing or non-array \"shape\"");
    if (obj["data_offsets"].get_array().get(offsets)) fail(offset, name, "missing or non-array \"data_offsets\"");

    model::TensorInfo t;
    t.name = std::string(name);
    t.type_name = std::string(dtype);
    t.info_offset = offset;
    t.n_elements = 1;
    for (auto d : shape) {
        uint64_t v;
        if (d.get_uint64().get(v)) fail(offset, name, "shape holds " + simdjson::to_string(d) + ", expected a non-negative integer");
        if (v != 0 && t.n_elements > std::numeric_limits<uint64_t>::max() / 8 / v)
            fail(offset, name, "the product of the shape overflows");
        t.n_elements *= v;
        t.dims.push_back(v);
    }
    if (offsets.size() != 2) fail(offset, name, "data_offsets has " + std::to_string(offsets.size()) + " entries, expected 2");
    uint64_t begin, end;
    if (offsets.at(0).get_uint64().get(begin) || offsets.at(1).get_uint64().get(end))
        fail(offset, name, "data_offsets must be non-negative integers");
    if (end < begin) fail(offset, name, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] end before they begin");
    t.offset = begin;
    t.bytes = end - begin;
    if (auto bits = safetensors_dtype_bits(dtype)) {
        if (t.n_elements > std::numeric_limits<uint64_t>::max() / *bits)
            fail(offset, name, std::to_string(t.n_elements) + " " + std::string(dtype) + " elements take more than 2^64 bits");
        uint64_t total_bits = t.n_elements * *bits;
        if (total_bits % 8 != 0)
            fail(offset, name, std::to_string(t.n_elements) + " " + std::string(dtype) + " elements are not a whole number of bytes");
        t.expected_bytes = total_bits / 8;
        if (*t.expected_bytes != t.bytes)
            fail(offset, name, "shape x dtype is " + std::to_string(*t.expected_bytes) + " bytes but data_offsets span " +
                           std::to_string(t.bytes));
    } else {
        h_.warnings.push_back({t.info_offset, "tensor '" + t.name + "': unknown dtype '" + std::string(dtype) +
                                                  "' (kept; size taken from data_offsets)"});
    }
    ends_.push_back(end);
    h_.tensors.push_back(std::move(t));
}

// Tensors must tile the data section exactly: from 0, no holes, no overlaps,
// ending at the end of the file.
void SafetensorsParser::check_layout() {
    std::vector<size_t> order(h_.tensors.size());
    std::iota(order.begin(), order.end(), 0);
    // ties in file order, so the later of two tensors on the same bytes is the one reported
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::tuple(h_.tensors[a].offset, ends_[a], a) < std::tuple(h_.tensors[b].offset, ends_[b], b);
    });
    const uint64_t data_bytes = file_size_ - h_.data_start;
    uint64_t expect = 0;
    for (size_t i : order) {
        const model::TensorInfo& t = h_.tensors[i];
        if (t.offset > expect) fail(t.info_offset, t.name, "hole in the data: bytes [" + std::to_string(expect) + ", " +
                                                std::to_string(t.offset) + ") belong to no tensor");
        if (t.offset < expect) fail(t.info_offset, t.name, "data_offsets [" + std::to_string(t.offset) + ", " + std::to_string(ends_[i]) +
                                                ") overlap the previous tensor, which ends at " + std::to_string(expect));
        if (ends_[i] > data_bytes)
            fail(t.info_offset, t.name, "data_offsets end at " + std::to_string(ends_[i]) + ", past the " + std::to_string(data_bytes) +
                             " data bytes in the file");
        expect = ends_[i];
    }
    if (expect != data_bytes)
        throw model::FormatError(h_.data_start + expect, std::to_string(data_bytes - expect) +
                                                      " trailing bytes after the last tensor's data");
}

model::FileHeader SafetensorsParser::parse() {
    h_.format = model::Format::safetensors;
    h_.file_size = file_size_;
    h_.data_start = h_.header_bytes = h_.parsed_bytes = 8 + json_.size();
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto err = parser.parse(json_.data(), json_.size()).get(root))
        throw model::FormatError(8, std::string("header is not valid JSON: ") + simdjson::error_message(err));
    simdjson::dom::object obj;
    if (root.get_object().get(obj)) throw model::FormatError(8, "header is not a JSON object");
    const std::vector<uint64_t> at = key_offsets(json_, json_.find('{'));
    std::unordered_set<std::string_view> keys;
    size_t i = 0;
    for (auto field : obj) {
        const uint64_t offset = 8 + at.at(i++);
        if (!keys.insert(field.key).second) throw model::FormatError(offset, "duplicate key '" + std::string(field.key) + "'");
        if (h_.tensors.size() >= limits_.max_tensors)
            throw model::FormatError(offset, "more than the cap of " + std::to_string(limits_.max_tensors) + " tensors");
        if (field.key == "__metadata__") read_metadata(field.value, offset);
        else read_tensor(field.key, field.value, offset);
    }
    check_layout();
    return std::move(h_);
}

}  // namespace

std::optional<uint32_t> safetensors_dtype_bits(std::string_view dtype) {
    for (const Dtype& d : kDtypes)
        if (d.name == dtype) return d.bits;
    return std::nullopt;
}

ParseResult parse_safetensors(std::span<const uint8_t> prefix, uint64_t file_size, const model::Limits& limits) {
    ByteCursor cur(prefix, file_size);
    uint64_t n;
    try {
        n = cur.read<uint64_t>("header length");
    } catch (const OutOfBytes& o) {
        return NeedMore{o.needed_end, std::min<uint64_t>(file_size, 1 << 16)};
    }
    uint64_t cap = std::min(kSafetensorsMaxHeader, limits.max_header_bytes);
    if (n > cap || n > file_size - 8)
        if (auto cause = likely_cause(prefix.first(std::min<size_t>(prefix.size(), 64))))
            throw model::FormatError(0, "not a safetensors file: " + *cause);
    if (n > cap) throw model::FormatError(0, "header length " + std::to_string(n) + " exceeds the cap of " + std::to_string(cap));
    if (n > file_size - 8)
        throw model::FormatError(0, "header length " + std::to_string(n) + " runs past the end of the file (" +
                                 std::to_string(file_size) + " bytes)");
    if (prefix.size() < 8 + n) return NeedMore{8 + n, 8 + n};
    std::string_view json(reinterpret_cast<const char*>(prefix.data()) + 8, n);
    model::FileHeader h = SafetensorsParser(json, file_size, limits).parse();
    model::ContentHash hash;
    hash.update(prefix.first(h.parsed_bytes));
    h.header_hash = hash.digest();
    return h;
}

}  // namespace modelcat::format
