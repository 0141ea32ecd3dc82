#pragma once
// The promises both parsers keep for any bytes at all, checked by the libFuzzer
// targets and by the corpus replay test. A parse ends in a header, a request
// for more bytes or a FormatError; anything else (another exception, a header
// that contradicts itself or the file, a request that cannot make progress)
// is a bug. Header-only so that the plain test build needs no fuzz library.
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "format/gguf.hpp"
#include "format/parse_result.hpp"
#include "format/safetensors.hpp"
#include "model/error.hpp"
#include "model/ggml_compat.hpp"
#include "model/ggml_types.hpp"
#include "model/limits.hpp"
#include "model/utf8.hpp"

namespace modelcat::fuzzcheck {

using model::FileHeader;
using model::Format;
using model::Limits;
using u128 = unsigned __int128;

inline std::string check_metadata(const FileHeader& h, const Limits& limits) {
    std::unordered_set<std::string> keys;
    for (const auto& e : h.metadata) {
        if (!keys.insert(e.key).second) return "metadata key '" + e.key + "' kept twice";
        if (h.format == Format::gguf && e.key.empty()) return "empty GGUF key kept";
        const auto* a = std::get_if<model::ArraySummary>(&e.value);
        if (!a) continue;
        if (a->json && a->length > limits.array_json_cap)
            return "array '" + e.key + "': JSON kept for length " + std::to_string(a->length);
        // a short array goes without JSON only past the budget: at most 6 characters an element byte (a bool's "false,")
        if (!a->json && a->length <= limits.array_json_cap && a->byte_size * 8 < limits.array_json_bytes)
            return "array '" + e.key + "': no JSON for " + std::to_string(a->byte_size) + " bytes";
        if (!a->json) continue;
        if (a->json->size() > std::max(limits.array_json_bytes, limits.kept_json_bytes) + 1)  // + its closing ']'
            return "array '" + e.key + "': JSON of " + std::to_string(a->json->size()) + " bytes, past the budget";
        simdjson::dom::parser parser;
        simdjson::dom::array arr;
        if (parser.parse(simdjson::padded_string(*a->json)).get_array().get(arr))
            return "array '" + e.key + "': JSON is not a JSON array: " + *a->json;
        if (arr.size() != a->length)
            return "array '" + e.key + "': JSON has " + std::to_string(arr.size()) + " elements, length is " +
                   std::to_string(a->length);
    }
    if (h.format == Format::gguf && h.metadata.size() > h.declared_kv_count) return "more keys than kv_count";
    return "";
}

inline std::string check_gguf_tensors(const FileHeader& h, const Limits& limits) {
    if (h.alignment == 0 || (h.alignment & (h.alignment - 1)) != 0 || h.alignment > limits.max_alignment)
        return "alignment " + std::to_string(h.alignment);
    if (h.data_start % h.alignment != 0 || h.data_start > limits.max_header_bytes)
        return "data_start " + std::to_string(h.data_start);
    if (h.header_bytes != std::min(h.data_start, h.file_size)) return "header_bytes is not min(data_start, file_size)";
    if (!h.tensors.empty() && h.data_start > h.file_size) return "tensors but the data starts past the file";
    const uint64_t data_bytes = h.file_size > h.data_start ? h.file_size - h.data_start : 0;
    for (size_t i = 0; i < h.tensors.size(); ++i) {
        const auto& t = h.tensors[i];
        if (t.name.empty() || t.dims.size() > 4 || !t.type_id) return "tensor " + std::to_string(i) + " malformed";
        u128 n = 1;
        for (uint64_t d : t.dims) n = std::min<u128>(n * d, u128(1) << 64);
        if (n != t.n_elements || n > uint64_t(INT64_MAX)) return "tensor '" + t.name + "': n_elements is not the product";
        const model::GgmlType* gt = model::find_ggml_type(*t.type_id);
        if (t.type_name != model::ggml_type_name(*t.type_id)) return "tensor '" + t.name + "': type name";
        if (gt) {
            u128 want = u128(t.n_elements / gt->block_size) * gt->type_size;
            if (t.n_elements % gt->block_size != 0 || !t.expected_bytes || *t.expected_bytes != want)
                return "tensor '" + t.name + "': expected_bytes is not the table's size";
        } else if (t.expected_bytes) {
            return "tensor '" + t.name + "': expected_bytes for an unknown type";
        }
        const uint64_t next = i + 1 < h.tensors.size() ? h.tensors[i + 1].offset : data_bytes;
        if (t.offset % h.alignment != 0) return "tensor '" + t.name + "': unaligned offset";
        if (u128(t.offset) + t.bytes != next) return "tensor '" + t.name + "': offset + bytes is not the next offset";
        if (t.expected_bytes.value_or(0) > t.bytes) return "tensor '" + t.name + "': measured less than the table";
    }
    return "";
}

inline std::string check_safetensors_tensors(const FileHeader& h) {
    if (h.data_start != h.header_bytes || h.data_start > h.file_size) return "data_start";
    std::vector<const model::TensorInfo*> order;
    for (const auto& t : h.tensors) order.push_back(&t);
    std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
    uint64_t expect = 0;
    for (const auto* t : order) {
        if (t->offset != expect) return "tensor '" + t->name + "': data does not tile";
        if (t->expected_bytes && *t->expected_bytes != t->bytes) return "tensor '" + t->name + "': size is not shape x dtype";
        u128 n = 1;
        for (uint64_t d : t->dims) n = std::min<u128>(n * d, u128(1) << 64);
        if (n != t->n_elements) return "tensor '" + t->name + "': n_elements is not the product";
        expect = t->offset + t->bytes;
    }
    if (expect != h.file_size - h.data_start) return "data does not end at the end of the file";
    return "";
}

// The catalogue's text is UTF-8 whatever the file holds (README, Security);
// and ggml's checks run on every header modelcat accepts.
inline std::string check_text(const FileHeader& h) {
    for (const auto& e : h.metadata) {
        const auto* s = std::get_if<std::string>(&e.value);
        if (model::first_invalid_utf8(e.key) || (s && model::first_invalid_utf8(*s)))
            return "key '" + model::quote_bytes(e.key) + "' or its value is not UTF-8";
    }
    for (const auto& t : h.tensors)
        if (model::first_invalid_utf8(t.name) || model::first_invalid_utf8(t.type_name))
            return "tensor '" + model::quote_bytes(t.name) + "': name or type is not UTF-8";
    for (const auto& r : model::ggml_refusals(h))
        if (r.check.empty() || model::first_invalid_utf8(r.reason)) return "ggml refusal without a check or UTF-8 reason";
    return "";
}

inline std::string check_header(const FileHeader& h, Format f, uint64_t file_size, const Limits& limits) {
    if (h.format != f || h.file_size != file_size || h.header_bytes > file_size) return "format, file_size or header_bytes";
    std::unordered_set<std::string> names;
    for (const auto& t : h.tensors)
        if (!names.insert(t.name).second) return "tensor name '" + t.name + "' kept twice";
    if (h.tensors.size() > limits.max_tensors) return "more tensors than the cap";
    if (std::string m = check_metadata(h, limits); !m.empty()) return m;
    if (std::string m = check_text(h); !m.empty()) return m;
    return f == Format::gguf ? check_gguf_tensors(h, limits) : check_safetensors_tensors(h);
}

inline format::ParseResult parse(Format f, std::span<const uint8_t> prefix, uint64_t file_size, const Limits& limits) {
    return f == Format::gguf ? format::parse_gguf(prefix, file_size, limits)
                             : format::parse_safetensors(prefix, file_size, limits);
}

// The broken promise when parsing `prefix` as the start of a file of
// `file_size` bytes, or "" when all hold. `depth` bounds the progress check.
inline std::string check_parse(Format f, std::span<const uint8_t> prefix, uint64_t file_size, const Limits& limits,
                               int depth = 1) {
    try {
        format::ParseResult r = parse(f, prefix, file_size, limits);
        if (const auto* h = std::get_if<FileHeader>(&r)) return check_header(*h, f, file_size, limits);
        const auto& more = std::get<format::NeedMore>(r);
        // safetensors' 8-byte length sits outside its JSON cap
        const uint64_t cap = limits.max_header_bytes + (f == Format::safetensors ? 8 : 0);
        if (more.min_bytes <= prefix.size() || more.min_bytes > file_size || more.estimated_total < more.min_bytes ||
            more.estimated_total > std::min(file_size, cap))
            return "NeedMore{" + std::to_string(more.min_bytes) + ", " + std::to_string(more.estimated_total) +
                   "} for a prefix of " + std::to_string(prefix.size()) + " of " + std::to_string(file_size);
        // given the bytes it asked for (zeros here), the parser must get further
        if (depth == 0 || more.min_bytes - prefix.size() > (64u << 10)) return "";
        std::vector<uint8_t> longer(prefix.begin(), prefix.end());
        longer.resize(more.min_bytes, 0);
        std::string m = check_parse(f, longer, file_size, limits, depth - 1);
        return m.empty() ? "" : "after zeros up to " + std::to_string(more.min_bytes) + ": " + m;
    } catch (const model::FormatError& e) {
        if (e.offset().value_or(0) > file_size || std::string_view(e.what()).empty())
            return "FormatError at " + std::to_string(e.offset().value_or(0)) + " of " + std::to_string(file_size) + ": " + e.what();
        return "";
    } catch (const std::exception& e) {
        return std::string("threw something other than FormatError: ") + e.what();
    } catch (...) {
        return "threw a non-exception";
    }
}

inline bool same_header(const FileHeader& a, const FileHeader& b) {
    auto tensor = [](const model::TensorInfo& t) { return std::tuple(t.name, t.offset, t.bytes, t.n_elements); };
    return a.data_start == b.data_start && a.header_bytes == b.header_bytes && a.alignment == b.alignment &&
           a.metadata.size() == b.metadata.size() && a.warnings.size() == b.warnings.size() &&
           std::equal(a.tensors.begin(), a.tensors.end(), b.tensors.begin(), b.tensors.end(),
                      [&](const auto& x, const auto& y) { return tensor(x) == tensor(y); });
}

// When the whole `file` parses, its first half and all but its last byte,
// read as the start of that file, must ask for more or give the same header.
inline std::string check_prefixes_agree(Format f, std::span<const uint8_t> file, const Limits& limits) {
    format::ParseResult whole;
    try {
        whole = parse(f, file, file.size(), limits);
    } catch (...) {
        return "";  // check_parse judges the whole file
    }
    const auto* h = std::get_if<FileHeader>(&whole);
    if (!h) return "";
    for (size_t cut : {file.size() / 2, file.size() - 1}) {
        try {
            format::ParseResult part = parse(f, file.first(cut), file.size(), limits);
            if (const auto* p = std::get_if<FileHeader>(&part); p && !same_header(*p, *h))
                return "its first " + std::to_string(cut) + " bytes give another header";
        } catch (const std::exception& e) {
            return "the file parses but its first " + std::to_string(cut) + " bytes throw: " + e.what();
        }
    }
    return "";
}

// Every way the fuzz targets and the replay test read one input: as the whole
// file (and two of its prefixes), as the start of a file 4 KiB and 1 TiB
// longer, and (safetensors) with the length field saying the rest of the input
// is the header, so mutated JSON still reaches the JSON parser. Returns the
// broken promises.
inline std::vector<std::string> check_input(Format f, std::span<const uint8_t> bytes, const Limits& limits = {}) {
    std::vector<std::string> broken;
    auto check = [&](std::span<const uint8_t> b, uint64_t file_size, const char* how) {
        if (std::string m = check_parse(f, b, file_size, limits); !m.empty())
            broken.push_back(std::string(how) + ": " + m);
    };
    check(bytes, bytes.size(), "whole file");
    if (std::string m = check_prefixes_agree(f, bytes, limits); !m.empty()) broken.push_back("prefixes: " + m);
    check(bytes, bytes.size() + 4096, "prefix of +4 KiB");
    check(bytes, bytes.size() + (1ull << 40), "prefix of +1 TiB");
    if (f == Format::safetensors && bytes.size() >= 8) {
        std::vector<uint8_t> fixed(bytes.begin(), bytes.end());
        const uint64_t n = fixed.size() - 8;
        for (int i = 0; i < 8; ++i) fixed[i] = static_cast<uint8_t>(n >> (8 * i));
        check(fixed, fixed.size(), "length = rest of the input");
    }
    return broken;
}

}  // namespace modelcat::fuzzcheck
