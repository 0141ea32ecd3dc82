#include "audit/inputs.hpp"

#include <filesystem>

#include "crawl/header_reader.hpp"
#include "format/checkpoint.hpp"
#include "format/dequant.hpp"
#include "format/ggml_types.hpp"
#include "io/byte_source.hpp"

namespace modelcat::audit {

namespace fs = std::filesystem;

namespace {

io::ByteBuffer read_whole(const std::string& path, uint64_t& counted) {
    io::LocalFile f(path);
    io::ByteBuffer buf;
    f.read(0, f.size(), buf);
    counted += f.bytes_read();
    return buf;
}

format::FileHeader read_file_header(const std::string& path, uint64_t& counted) {
    io::LocalFile f(path);
    format::FileHeader h = crawl::read_header(f, {});
    counted += f.bytes_read();
    return h;
}

void add_gguf(AuditInputs& in, const std::string& path) {
    format::FileHeader h = read_file_header(path, in.header_bytes_read);
    if (h.format != format::Format::gguf) throw format::FormatError(0, path + ": not a GGUF file");
    in.architecture = format::metadata_string(h, "general.architecture").value_or("");
    for (const auto& t : h.tensors) {
        TensorSpan s{t.name, t.type_name, t.type_id.value_or(0), false, {t.dims.rbegin(), t.dims.rend()}, t.dims, 0,
                     h.data_start + t.offset, t.expected_bytes.value_or(t.bytes)};
        s.known_type = t.type_id && format::find_ggml_type(*t.type_id) && t.expected_bytes;
        in.gguf.push_back(std::move(s));
    }
}

void add_shard(AuditInputs& in, const std::string& path) {
    format::FileHeader h = read_file_header(path, in.header_bytes_read);
    if (h.format != format::Format::safetensors) throw format::FormatError(0, path + ": not a safetensors file");
    size_t file = in.files.size();
    in.files.push_back(path);
    for (const auto& t : h.tensors) {
        auto type = format::ggml_type_of_dtype(t.type_name);
        in.source.push_back({t.name, t.type_name, type.value_or(0), type.has_value(), t.dims, {}, file,
                             h.data_start + t.offset, t.bytes});
    }
}

}  // namespace

uint64_t TensorSpan::elements() const {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
}

AuditInputs open_inputs(const std::string& gguf, const std::string& source) {
    AuditInputs in;
    in.files.push_back(gguf);
    add_gguf(in, gguf);
    fs::path dir = source, index;
    std::vector<std::string> shards;
    if (fs::is_directory(dir)) {
        index = dir / "model.safetensors.index.json";
        if (!fs::exists(index)) shards.push_back(dir / "model.safetensors"), index.clear();
    } else if (source.ends_with(".json")) {
        index = dir, dir = dir.parent_path();
    } else {
        shards.push_back(source), dir = dir.parent_path();
    }
    if (!index.empty()) {
        io::ByteBuffer json = read_whole(index, in.header_bytes_read);
        for (const auto& shard : format::parse_checkpoint_index(json).shards) shards.push_back(dir / shard);
    }
    for (const auto& s : shards) add_shard(in, s);
    io::ByteBuffer config = read_whole(dir / "config.json", in.header_bytes_read);
    in.config = format::parse_model_architecture(config);
    return in;
}

}  // namespace modelcat::audit
