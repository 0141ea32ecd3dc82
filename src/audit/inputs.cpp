#include "audit/inputs.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <tuple>

#include "format/checkpoint.hpp"
#include "format/dequant.hpp"
#include "io/http_reader.hpp"
#include "io/io_error.hpp"
#include "io/local_reader.hpp"
#include "io/sync_file.hpp"
#include "model/error.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::audit {

namespace fs = std::filesystem;

namespace {

// The same error, naming the file it came from (and keeping its offset or JSON path).
model::FormatError located(const model::FormatError& e, const std::string& location) {
    if (!e.json_path().empty()) return model::FormatError::at_json_path(e.json_path(), location + ": " + e.what());
    return model::FormatError(e.offset(), location + ": " + e.what());
}

// `name` in the folder that holds `location` (a path or a URL).
std::string sibling(const std::string& location, const std::string& name) {
    if (is_remote(location)) return location.substr(0, location.rfind('/') + 1) + name;
    return (fs::path(location).parent_path() / name).string();
}

// The audit's readers while it reads headers and JSON: local files inline, remote ones on one HTTP reader.
class HeaderReads {
public:
    explicit HeaderReads(AuditInputs& in) : in_(in) {}
    io::SyncFile open(const std::string& location) {
        if (!is_remote(location)) return io::SyncFile(local_, io::RangeRequest{location});
        if (!http_) http_ = std::make_unique<io::HttpReader>(in_.http);
        return io::SyncFile(*http_, io::RangeRequest{location});
    }
    // Counts what `file` read; a bad header's error gains the file's location.
    template <typename Read>
    auto counted(const std::string& location, Read read) {
        io::SyncFile file = open(location);
        try {
            auto result = read(file);
            in_.header_bytes_read += file.bytes_read(), in_.header_requests += file.requests();
            return std::make_pair(std::move(result), std::move(file));
        } catch (const model::FormatError& e) {
            throw located(e, location);
        }
    }
    format::ByteBuffer read_whole(const std::string& location) {
        return counted(location, [](io::SyncFile& f) { return f.read_whole(); }).first;
    }
    // The header, and the file recorded in `in` (where its reads went, its size, its first bytes).
    model::FileHeader read_file_header(const std::string& location) {
        auto [h, file] = counted(location, [](io::SyncFile& f) { return io::read_header(f, {}); });
        in_.files.push_back({file.route(), file.size(), file.first_bytes()});
        return h;
    }

private:
    AuditInputs& in_;
    io::LocalReader local_{0};
    std::unique_ptr<io::HttpReader> http_;
};

void add_gguf(AuditInputs& in, HeaderReads& reads, const std::string& location) {
    model::FileHeader h = reads.read_file_header(location);
    if (h.format != model::Format::gguf) throw model::FormatError(0, location + ": not a GGUF file");
    in.architecture = model::metadata_string(h, "general.architecture").value_or("");
    for (const auto& t : h.tensors) {
        TensorSpan s{t.name, t.type_name, t.type_id.value_or(0), false, {t.dims.rbegin(), t.dims.rend()}, t.dims, 0,
                     h.data_start + t.offset, t.expected_bytes.value_or(t.bytes)};
        s.known_type = t.type_id && model::find_ggml_type(*t.type_id) && t.expected_bytes;
        in.gguf.push_back(std::move(s));
    }
}

void add_shard(AuditInputs& in, HeaderReads& reads, const std::string& location) {
    size_t file = in.files.size();
    model::FileHeader h = reads.read_file_header(location);
    if (h.format != model::Format::safetensors) throw model::FormatError(0, location + ": not a safetensors file");
    for (const auto& t : h.tensors) {
        auto type = format::ggml_type_of_dtype(t.type_name);
        in.source.push_back({t.name, t.type_name, type.value_or(0), type.has_value(), t.dims, {}, file,
                             h.data_start + t.offset, t.bytes});
    }
}

// The checkpoint's shard locations and its config.json's, from what SOURCE names.
std::vector<std::string> shard_locations(HeaderReads& reads, const std::string& source, std::string& config) {
    std::string index;
    if (source.ends_with(".json")) {
        index = source;
    } else if (source.ends_with(".safetensors")) {
        config = sibling(source, "config.json");
        return {source};
    } else {
        std::string folder = source.ends_with("/") ? source : source + "/";
        index = folder + "model.safetensors.index.json";
        if (!is_remote(source) && !fs::exists(index)) {
            config = folder + "config.json";
            return {folder + "model.safetensors"};
        }
    }
    config = sibling(index, "config.json");
    format::ByteBuffer json = reads.read_whole(index);
    std::vector<std::string> shards;
    try {
        for (const auto& shard : format::parse_checkpoint_index(json).shards) shards.push_back(sibling(index, shard));
    } catch (const model::FormatError& e) {
        throw located(e, index);
    }
    return shards;
}

// hf://owner/repo[@revision][/path] as the Hub's resolve URL under $HF_ENDPOINT
// (default https://huggingface.co); other locations as they are.
std::string resolve_hub(const std::string& location) {
    if (!location.starts_with("hf://")) return location;
    const char* env = std::getenv("HF_ENDPOINT");
    std::string endpoint = env && *env ? env : "https://huggingface.co";
    while (endpoint.ends_with("/")) endpoint.pop_back();
    std::string rest = location.substr(5);
    size_t owner_end = rest.find('/');
    if (owner_end == std::string::npos || owner_end == 0)
        throw io::IoError(location + ": expected hf://owner/repo[@revision][/path]");
    size_t repo_end = std::min(rest.find('/', owner_end + 1), rest.size());
    std::string repo = rest.substr(0, repo_end), revision = "main";
    if (size_t at = repo.find('@'); at != std::string::npos) revision = repo.substr(at + 1), repo.resize(at);
    return endpoint + "/" + repo + "/resolve/" + revision + rest.substr(repo_end);
}

}  // namespace

bool is_remote(const std::string& location) {
    return location.starts_with("http://") || location.starts_with("https://");
}

uint64_t TensorSpan::elements() const {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
}

AuditInputs open_inputs(const std::string& gguf, const std::string& source) {
    AuditInputs in;
    HeaderReads reads(in);
    add_gguf(in, reads, resolve_hub(gguf));
    std::string config;
    for (const auto& s : shard_locations(reads, resolve_hub(source), config)) add_shard(in, reads, s);
    format::ByteBuffer json = reads.read_whole(config);
    try {
        in.config = format::parse_model_architecture(json);
    } catch (const model::FormatError& e) {
        throw located(e, config);
    }
    return in;
}

}  // namespace modelcat::audit
