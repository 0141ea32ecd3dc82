#include "format/safetensors.hpp"

#include <simdjson.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_set>

#include "format/byte_cursor.hpp"
#include "format/text.hpp"

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

class SafetensorsParser {
public:
    SafetensorsParser(std::string_view json, uint64_t file_size, const Limits& limits)
        : json_(json), file_size_(file_size), limits_(limits) {}
    FileHeader parse();

private:
    // Best-effort location of a key's text in the header, for error offsets.
    uint64_t offset_of(std::string_view key) const {
        std::string quoted = "\"" + std::string(key) + "\"";
        size_t p = json_.find(quoted);
        return 8 + (p == std::string_view::npos ? 0 : p);
    }
    [[noreturn]] void fail(std::string_view key, const std::string& msg) const {
        throw FormatError(offset_of(key), "tensor '" + std::string(key) + "': " + msg);
    }
    void read_metadata(simdjson::dom::element value);
    void read_tensor(std::string_view name, simdjson::dom::element value);
    void check_layout();

    std::string_view json_;
    uint64_t file_size_;
    const Limits& limits_;
    FileHeader h_;
    std::vector<uint64_t> ends_;  // data_offsets[1] of each tensor, in h_.tensors order
};

void SafetensorsParser::read_metadata(simdjson::dom::element value) {
    if (value.is_null()) return;
    simdjson::dom::object obj;
    if (value.get_object().get(obj))
        throw FormatError(offset_of("__metadata__"), "__metadata__ must be an object or null");
    for (auto field : obj) {
        MetadataEntry e;
        e.key = std::string(field.key);
        e.type = ValueType::string;
        e.offset = offset_of(field.key);
        std::string_view s;
        if (field.value.get_string().get(s) == simdjson::SUCCESS) e.value = std::string(s);
        else e.value = simdjson::to_string(field.value);  // the format says strings; keep others as JSON text
        h_.metadata.push_back(std::move(e));
    }
}

void SafetensorsParser::read_tensor(std::string_view name, simdjson::dom::element value) {
    simdjson::dom::object obj;
    if (value.get_object().get(obj)) fail(name, "entry is not an object");
    std::string_view dtype;
    if (obj["dtype"].get_string().get(dtype)) fail(name, "missing or non-string \"dtype\"");
    simdjson::dom::array shape, offsets;
    if (obj["shape"].get_array().get(shape)) fail(name, "missing or non-array \"shape\"");
    if (obj["data_offsets"].get_array().get(offsets)) fail(name, "missing or non-array \"data_offsets\"");

    TensorInfo t;
    t.name = std::string(name);
    t.type_name = std::string(dtype);
    t.info_offset = offset_of(name);
    t.n_elements = 1;
    for (auto d : shape) {
        uint64_t v;
        if (d.get_uint64().get(v)) fail(name, "shape holds " + simdjson::to_string(d) + ", expected a non-negative integer");
        if (v != 0 && t.n_elements > std::numeric_limits<uint64_t>::max() / 8 / v)
            fail(name, "the product of the shape overflows");
        t.n_elements *= v;
        t.dims.push_back(v);
    }
    if (offsets.size() != 2) fail(name, "data_offsets has " + std::to_string(offsets.size()) + " entries, expected 2");
    uint64_t begin, end;
    if (offsets.at(0).get_uint64().get(begin) || offsets.at(1).get_uint64().get(end))
        fail(name, "data_offsets must be non-negative integers");
    if (end < begin) fail(name, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] end before they begin");
    t.offset = begin;
    t.bytes = end - begin;
    if (auto bits = safetensors_dtype_bits(dtype)) {
        uint64_t total_bits = t.n_elements * *bits;
        if (total_bits % 8 != 0)
            fail(name, std::to_string(t.n_elements) + " " + std::string(dtype) + " elements are not a whole number of bytes");
        t.expected_bytes = total_bits / 8;
        if (*t.expected_bytes != t.bytes)
            fail(name, "shape x dtype is " + std::to_string(*t.expected_bytes) + " bytes but data_offsets span " +
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
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::pair(h_.tensors[a].offset, ends_[a]) < std::pair(h_.tensors[b].offset, ends_[b]);
    });
    const uint64_t data_bytes = file_size_ - h_.data_start;
    uint64_t expect = 0;
    for (size_t i : order) {
        const TensorInfo& t = h_.tensors[i];
        if (t.offset > expect) fail(t.name, "hole in the data: bytes [" + std::to_string(expect) + ", " +
                                                std::to_string(t.offset) + ") belong to no tensor");
        if (t.offset < expect) fail(t.name, "data_offsets [" + std::to_string(t.offset) + ", " + std::to_string(ends_[i]) +
                                                ") overlap the previous tensor, which ends at " + std::to_string(expect));
        if (ends_[i] > data_bytes)
            fail(t.name, "data_offsets end at " + std::to_string(ends_[i]) + ", past the " + std::to_string(data_bytes) +
                             " data bytes in the file");
        expect = ends_[i];
    }
    if (expect != data_bytes)
        throw FormatError(h_.data_start + expect, std::to_string(data_bytes - expect) +
                                                      " trailing bytes after the last tensor's data");
}

FileHeader SafetensorsParser::parse() {
    h_.format = Format::safetensors;
    h_.file_size = file_size_;
    h_.data_start = h_.header_bytes = 8 + json_.size();
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto err = parser.parse(json_.data(), json_.size()).get(root))
        throw FormatError(8, std::string("header is not valid JSON: ") + simdjson::error_message(err));
    simdjson::dom::object obj;
    if (root.get_object().get(obj)) throw FormatError(8, "header is not a JSON object");
    std::unordered_set<std::string_view> keys;
    for (auto field : obj) {
        if (!keys.insert(field.key).second) throw FormatError(offset_of(field.key), "duplicate key '" + std::string(field.key) + "'");
        if (h_.tensors.size() >= limits_.max_tensors)
            throw FormatError(offset_of(field.key), "more than the cap of " + std::to_string(limits_.max_tensors) + " tensors");
        if (field.key == "__metadata__") read_metadata(field.value);
        else read_tensor(field.key, field.value);
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

ParseResult parse_safetensors(std::span<const uint8_t> prefix, uint64_t file_size, const Limits& limits) {
    ByteCursor cur(prefix, file_size);
    uint64_t n;
    try {
        n = cur.read<uint64_t>("header length");
    } catch (const OutOfBytes& o) {
        return NeedMore{o.needed_end, std::min<uint64_t>(file_size, 1 << 16)};
    }
    uint64_t cap = std::min(kSafetensorsMaxHeader, limits.max_header_bytes);
    if (n > cap) throw FormatError(0, "header length " + std::to_string(n) + " exceeds the cap of " + std::to_string(cap));
    if (n > file_size - 8)
        throw FormatError(0, "header length " + std::to_string(n) + " runs past the end of the file (" +
                                 std::to_string(file_size) + " bytes)");
    if (prefix.size() < 8 + n) return NeedMore{8 + n, 8 + n};
    std::string_view json(reinterpret_cast<const char*>(prefix.data()) + 8, n);
    return SafetensorsParser(json, file_size, limits).parse();
}

}  // namespace modelcat::format
