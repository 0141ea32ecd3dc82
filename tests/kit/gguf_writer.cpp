#include "gguf_writer.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "format/gguf.hpp"
#include "format/parse_result.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::kit {

namespace {

uint64_t scalar_width(GgufType t) {
    switch (t) {
        case GgufType::u8:
        case GgufType::i8:
        case GgufType::boolean: return 1;
        case GgufType::u16:
        case GgufType::i16: return 2;
        case GgufType::u32:
        case GgufType::i32:
        case GgufType::f32: return 4;
        case GgufType::u64:
        case GgufType::i64:
        case GgufType::f64: return 8;
        case GgufType::string:
        case GgufType::array: break;
    }
    throw std::invalid_argument("not a scalar GGUF type: " + std::to_string(static_cast<uint32_t>(t)));
}

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

// Appends GGUF primitives in the file's byte order and count width.
class GgufEncoder {
public:
    GgufEncoder(std::vector<uint8_t>& out, uint32_t version, Endian endian)
        : out_(out), count_width_(version == 1 ? 4 : 8), big_(endian == Endian::big) {}

    void uint(uint64_t v, uint64_t width) {
        for (uint64_t i = 0; i < width; ++i) {
            const uint64_t shift = 8 * (big_ ? width - 1 - i : i);
            out_.push_back(static_cast<uint8_t>(v >> shift));
        }
    }
    void count(uint64_t v) { uint(v, count_width_); }  // v1 stores uint32: larger values are truncated
    void bytes(const void* p, size_t n) {
        const auto* b = static_cast<const uint8_t*>(p);
        out_.insert(out_.end(), b, b + n);
    }
    void string(std::string_view s) {
        count(s.size());
        bytes(s.data(), s.size());
    }
    void value(const GgufValue& v) {
        switch (v.type_) {
            case GgufType::string: string(v.text_); return;
            case GgufType::array: {
                uint(static_cast<uint32_t>(v.elem_), 4);
                if (v.elem_ == GgufType::string) {
                    count(v.strings_.size());
                    for (const auto& s : v.strings_) string(s);
                } else if (v.elem_ == GgufType::array) {
                    count(v.arrays_.size());
                    for (const auto& a : v.arrays_) value(a);
                } else {
                    count(v.scalars_.size());
                    for (uint64_t bits : v.scalars_) uint(bits, scalar_width(v.elem_));
                }
                return;
            }
            default: uint(v.bits_, scalar_width(v.type_));
        }
    }

private:
    std::vector<uint8_t>& out_;
    uint64_t count_width_;
    bool big_;
};

// ---- GgufValue ----

GgufValue GgufValue::scalar(GgufType t, uint64_t bits) {
    GgufValue out(t);
    out.bits_ = bits;
    return out;
}

GgufValue GgufValue::u8(uint8_t v) { return scalar(GgufType::u8, v); }
GgufValue GgufValue::i8(int8_t v) { return scalar(GgufType::i8, static_cast<uint8_t>(v)); }
GgufValue GgufValue::u16(uint16_t v) { return scalar(GgufType::u16, v); }
GgufValue GgufValue::i16(int16_t v) { return scalar(GgufType::i16, static_cast<uint16_t>(v)); }
GgufValue GgufValue::u32(uint32_t v) { return scalar(GgufType::u32, v); }
GgufValue GgufValue::i32(int32_t v) { return scalar(GgufType::i32, static_cast<uint32_t>(v)); }
GgufValue GgufValue::f32(float v) { return scalar(GgufType::f32, std::bit_cast<uint32_t>(v)); }
GgufValue GgufValue::boolean(bool v) { return scalar(GgufType::boolean, v ? 1 : 0); }
GgufValue GgufValue::u64(uint64_t v) { return scalar(GgufType::u64, v); }
GgufValue GgufValue::i64(int64_t v) { return scalar(GgufType::i64, static_cast<uint64_t>(v)); }
GgufValue GgufValue::f64(double v) { return scalar(GgufType::f64, std::bit_cast<uint64_t>(v)); }

GgufValue GgufValue::str(std::string v) {
    GgufValue out(GgufType::string);
    out.text_ = std::move(v);
    return out;
}

GgufValue GgufValue::array(GgufType elem, std::vector<GgufValue> elems) {
    GgufValue out(GgufType::array);
    out.elem_ = elem;
    for (auto& e : elems) {
        if (e.type_ != elem) throw std::invalid_argument("GgufValue::array: element of another type");
        if (elem == GgufType::string)
            out.strings_.push_back(std::move(e.text_));
        else if (elem == GgufType::array)
            out.arrays_.push_back(std::move(e));
        else
            out.scalars_.push_back(e.bits_);
    }
    return out;
}

GgufValue GgufValue::string_array(std::vector<std::string> v) {
    GgufValue out(GgufType::array);
    out.elem_ = GgufType::string;
    out.strings_ = std::move(v);
    return out;
}

GgufValue GgufValue::i32_array(const std::vector<int32_t>& v) {
    GgufValue out(GgufType::array);
    out.elem_ = GgufType::i32;
    out.scalars_.reserve(v.size());
    for (int32_t x : v) out.scalars_.push_back(static_cast<uint32_t>(x));
    return out;
}

uint64_t GgufValue::encoded_size(uint32_t version) const {
    const uint64_t cw = version == 1 ? 4 : 8;
    switch (type_) {
        case GgufType::string: return cw + text_.size();
        case GgufType::array: {
            uint64_t n = 4 + cw;
            if (elem_ == GgufType::string) {
                for (const auto& s : strings_) n += cw + s.size();
            } else if (elem_ == GgufType::array) {
                for (const auto& a : arrays_) n += a.encoded_size(version);
            } else if (!scalars_.empty()) {  // an empty array may carry any element type id
                n += scalars_.size() * scalar_width(elem_);
            }
            return n;
        }
        default: return scalar_width(type_);
    }
}

// ---- GgufWriter ----

GgufWriter::GgufWriter(uint32_t version, Endian endian) : version_(version), endian_(endian) {}

void GgufWriter::set_alignment(uint64_t n) {
    if (n == 0) throw std::invalid_argument("GgufWriter: alignment 0");
    alignment_ = n;
}

void GgufWriter::add_kv(std::string key, GgufValue value) {
    const uint64_t size = count_width() + key.size() + 4 + value.encoded_size(version_);
    const auto type_id = static_cast<uint32_t>(value.type());
    kvs_.push_back({std::move(key), type_id, std::move(value), size});
}

void GgufWriter::replace_kv(const std::string& key, GgufValue value) {
    for (Kv& kv : kvs_) {
        if (kv.key != key) continue;
        kv.size = count_width() + key.size() + 4 + value.encoded_size(version_);
        kv.type_id = static_cast<uint32_t>(value.type());
        kv.value = std::move(value);
        return;
    }
    throw std::invalid_argument("no KV named " + key);
}

void GgufWriter::add_raw_kv(std::string key, uint32_t type_id, std::vector<uint8_t> payload) {
    const uint64_t size = count_width() + key.size() + 4 + payload.size();
    kvs_.push_back({std::move(key), type_id, std::move(payload), size});
}

void GgufWriter::add_tensor(std::string name, std::vector<uint64_t> dims, uint32_t type,
                            std::optional<uint64_t> bytes) {
    const uint64_t offset = align_up(data_bytes(), alignment_);
    add_tensor_at(std::move(name), std::move(dims), type, offset, bytes);
}

void GgufWriter::add_tensor_at(std::string name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset,
                               std::optional<uint64_t> bytes) {
    if (!bytes) {
        uint64_t elements = 1;
        for (uint64_t d : dims) elements *= d;
        bytes = model::ggml_expected_bytes(type, elements);
        if (!bytes) throw std::invalid_argument("GgufWriter: give the byte size of tensor " + name);
    }
    tensors_.push_back({std::move(name), std::move(dims), type, offset, *bytes});
}

uint64_t GgufWriter::tensor_info_size(const GgufTensorInfo& t) const {
    return count_width() + t.name.size() + 4 + t.dims.size() * count_width() + 4 + 8;
}

uint64_t GgufWriter::kv_offset(size_t i) const {
    if (i >= kvs_.size()) throw std::out_of_range("GgufWriter::kv_offset");
    uint64_t off = prologue_size();
    for (size_t k = 0; k < i; ++k) off += kvs_[k].size;
    return off;
}

uint64_t GgufWriter::metadata_end() const {
    uint64_t off = prologue_size();
    for (const auto& kv : kvs_) off += kv.size;
    return off;
}

uint64_t GgufWriter::tensor_info_offset(size_t i) const {
    if (i >= tensors_.size()) throw std::out_of_range("GgufWriter::tensor_info_offset");
    uint64_t off = metadata_end();
    for (size_t k = 0; k < i; ++k) off += tensor_info_size(tensors_[k]);
    return off;
}

uint64_t GgufWriter::header_end() const {
    uint64_t off = metadata_end();
    for (const auto& t : tensors_) off += tensor_info_size(t);
    return off;
}

uint64_t GgufWriter::data_start() const { return align_up(header_end(), alignment_); }

uint64_t GgufWriter::data_bytes() const {
    uint64_t end = 0;
    for (const auto& t : tensors_) end = std::max(end, t.offset + t.bytes);
    return end;
}

std::vector<uint8_t> GgufWriter::encode_until_header_end() const {
    std::vector<uint8_t> out;
    out.reserve(data_start());
    GgufEncoder enc(out, version_, endian_);
    enc.bytes("GGUF", 4);  // the magic is bytes, not a number: never swapped
    enc.uint(version_, 4);
    enc.count(tensor_count_override_.value_or(tensors_.size()));
    enc.count(kv_count_override_.value_or(kvs_.size()));
    for (const auto& kv : kvs_) {
        enc.string(kv.key);
        enc.uint(kv.type_id, 4);
        if (const auto* v = std::get_if<GgufValue>(&kv.value)) {
            enc.value(*v);
        } else {
            const auto& raw = std::get<std::vector<uint8_t>>(kv.value);
            enc.bytes(raw.data(), raw.size());
        }
    }
    for (const auto& t : tensors_) {
        enc.string(t.name);
        enc.uint(t.dims.size(), 4);
        for (uint64_t d : t.dims) enc.count(d);
        enc.uint(t.type, 4);
        enc.uint(t.offset, 8);
    }
    return out;
}

std::vector<uint8_t> GgufWriter::header() const {
    std::vector<uint8_t> out = encode_until_header_end();
    out.resize(data_start(), 0);
    return out;
}

void GgufWriter::write(const std::filesystem::path& path, DataMode mode) const {
    write_file(path, header(), file_size(), mode);
}

void GgufWriter::write_header_only(const std::filesystem::path& path) const {
    const std::vector<uint8_t> head = encode_until_header_end();
    write_file(path, head, head.size(), DataMode::sparse);
}

model::FileHeader parse_header(const GgufWriter& w) {
    const std::vector<uint8_t> bytes = w.header();
    format::ParseResult r = format::parse_gguf(bytes, w.file_size());
    if (auto* h = std::get_if<model::FileHeader>(&r)) return std::move(*h);
    throw std::runtime_error("the parser asked for more than the written header's " + std::to_string(bytes.size()) +
                             " bytes");
}

}  // namespace modelcat::kit
