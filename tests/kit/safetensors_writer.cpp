#include "safetensors_writer.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <stdexcept>

namespace modelcat::kit {

namespace {

std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out += c;  // bytes >= 0x80 pass through: names are UTF-8
        }
    }
    return out + "\"";
}

std::vector<uint8_t> with_length_prefix(std::string_view json) {
    std::vector<uint8_t> out(8 + json.size());
    for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(static_cast<uint64_t>(json.size()) >> (8 * i));
    std::copy(json.begin(), json.end(), out.begin() + 8);
    return out;
}

}  // namespace

std::optional<uint32_t> dtype_bits(std::string_view dtype) {
    struct Bits {
        std::string_view name;
        uint32_t bits;
    };
    static constexpr std::array kBits{
        Bits{"BOOL", 8},    Bits{"U8", 8},   Bits{"I8", 8},   Bits{"F8_E4M3", 8}, Bits{"F8_E5M2", 8},
        Bits{"F8_E8M0", 8}, Bits{"U16", 16}, Bits{"I16", 16}, Bits{"F16", 16},    Bits{"BF16", 16},
        Bits{"U32", 32},    Bits{"I32", 32}, Bits{"F32", 32}, Bits{"U64", 64},    Bits{"I64", 64},
        Bits{"F64", 64},    Bits{"C64", 64}, Bits{"F4", 4},   Bits{"F6_E2M3", 6}, Bits{"F6_E3M2", 6},
    };
    for (const auto& b : kBits)
        if (b.name == dtype) return b.bits;
    return std::nullopt;
}

void SafetensorsWriter::add(std::string name, std::string dtype, std::vector<uint64_t> shape) {
    const auto bits = dtype_bits(dtype);
    if (!bits) throw std::invalid_argument("SafetensorsWriter: give data_offsets for dtype " + dtype);
    uint64_t elements = 1;
    for (uint64_t d : shape) elements *= d;
    const uint64_t begin = data_bytes();
    add_at(std::move(name), std::move(dtype), std::move(shape), begin, begin + (elements * *bits + 7) / 8);
}

void SafetensorsWriter::add_at(std::string name, std::string dtype, std::vector<uint64_t> shape, uint64_t begin,
                               uint64_t end) {
    entries_.push_back({std::move(name), std::move(dtype), std::move(shape), begin, end});
}

void SafetensorsWriter::set_metadata(std::vector<std::pair<std::string, std::string>> kv) {
    metadata_kind_ = Metadata::map;
    metadata_ = std::move(kv);
}

void SafetensorsWriter::set_metadata_null() {
    metadata_kind_ = Metadata::null;
    metadata_.clear();
}

void SafetensorsWriter::pad_to_multiple(uint64_t m) {
    if (m == 0) throw std::invalid_argument("SafetensorsWriter: padding multiple 0");
    pad_multiple_ = m;
    pad_length_.reset();
}

void SafetensorsWriter::pad_to_length(uint64_t n) { pad_length_ = n; }

std::string SafetensorsWriter::json() const {
    // Same shape as the safetensors library: no spaces, __metadata__ first.
    std::string out = "{";
    if (metadata_kind_ == Metadata::null) out += "\"__metadata__\":null,";
    if (metadata_kind_ == Metadata::map) {
        out += "\"__metadata__\":{";
        for (size_t i = 0; i < metadata_.size(); ++i) {
            if (i) out += ',';
            out += json_string(metadata_[i].first);
            out += ':';
            out += json_string(metadata_[i].second);
        }
        out += "},";
    }
    for (const auto& e : entries_) {
        out += json_string(e.name) + ":{\"dtype\":" + json_string(e.dtype) + ",\"shape\":[";
        for (size_t i = 0; i < e.shape.size(); ++i) {
            if (i) out += ',';
            out += std::to_string(e.shape[i]);
        }
        out += "],\"data_offsets\":[" + std::to_string(e.begin) + "," + std::to_string(e.end) + "]},";
    }
    if (out.size() > 1) out.pop_back();  // the trailing comma
    return out + "}";
}

uint64_t SafetensorsWriter::header_length() const {
    const uint64_t n = json().size();
    if (!pad_length_) return (n + pad_multiple_ - 1) / pad_multiple_ * pad_multiple_;
    if (*pad_length_ < n) throw std::length_error("SafetensorsWriter: JSON longer than the requested header length");
    return *pad_length_;
}

std::vector<uint8_t> SafetensorsWriter::header() const {
    std::string text = json();
    text.resize(header_length(), ' ');
    return with_length_prefix(text);
}

uint64_t SafetensorsWriter::data_bytes() const {
    uint64_t end = 0;
    for (const auto& e : entries_) end = std::max(end, e.end);
    return end;
}

void SafetensorsWriter::write(const std::filesystem::path& path, DataMode mode) const {
    const std::vector<uint8_t> head = header();
    write_file(path, head, head.size() + data_bytes(), mode);
}

void write_raw_safetensors(const std::filesystem::path& path, std::string_view header_json, uint64_t data_bytes,
                           DataMode mode) {
    const std::vector<uint8_t> head = with_length_prefix(header_json);
    write_file(path, head, head.size() + data_bytes, mode);
}

}  // namespace modelcat::kit
