#include "audit/sides.hpp"

#include "audit/checkpoint_texts.hpp"
#include "audit/metadata_audit.hpp"
#include "dequant/dequant.hpp"
#include "format/model_config.hpp"
#include "locate/checkpoint.hpp"
#include "locate/hub.hpp"
#include "locate/split_name.hpp"
#include "locate/sync_reads.hpp"
#include "model/error.hpp"
#include "model/ggml_types.hpp"

namespace modelcat::audit {

namespace {

// Reads a whole small file or a header through `reads`, counting what it costs; a bad
// header's error names its file.
template <typename Read>
auto counted(AuditSides& sides, locate::SyncReads& reads, const std::string& location, Read read) {
    io::SyncFile file = reads.open(location);
    try {
        auto result = read(file);
        sides.header_bytes_read += file.bytes_read(), sides.header_requests += file.requests();
        return std::make_pair(std::move(result), std::move(file));
    } catch (const model::FormatError& e) {
        throw e.location().empty() ? e.in(location) : e;
    }
}

// The header, and the file recorded in `sides` (where its reads went, its size, its first bytes).
model::FileHeader read_file_header(AuditSides& sides, locate::SyncReads& reads, const std::string& location,
                                   const format::HeaderReadOptions& options = {}) {
    auto [h, file] = counted(sides, reads, location, [&options](io::SyncFile& f) { return io::read_header(f, options); });
    sides.files.push_back({file.route(), file.size(), file.first_bytes()});
    return h;
}

// The GGUF, or every file of the split set it is a shard of (gguf-split writes the metadata in the first).
void add_gguf(AuditSides& sides, locate::SyncReads& reads, const std::string& location) {
    format::HeaderReadOptions options;
    options.limits.kept_arrays = metadata_kept_arrays(), options.limits.kept_json_bytes = kKeptArrayJsonBytes;
    const std::vector<std::string> shards = locate::split_set_files(location);
    for (size_t i = 0; i < shards.size(); ++i) {
        const size_t file = sides.files.size();
        model::FileHeader h = read_file_header(sides, reads, shards[i], options);
        if (h.format != model::Format::gguf) throw model::FormatError(0, "not a GGUF file").in(shards[i]);
        for (const auto& t : h.tensors) {
            TensorSpan s{t.name, t.type_name, t.type_id.value_or(0), false, {t.dims.rbegin(), t.dims.rend()}, t.dims, file,
                         h.data_start + t.offset, t.expected_bytes.value_or(t.bytes)};
            s.known_type = t.type_id && model::find_ggml_type(*t.type_id) && t.expected_bytes;
            sides.gguf.push_back(std::move(s));
        }
        if (i == 0) {
            sides.architecture = model::metadata_string(h, "general.architecture").value_or("");
            sides.gguf_header = std::move(h);
        }
    }
}

void add_shard(AuditSides& sides, locate::SyncReads& reads, const std::string& location) {
    size_t file = sides.files.size();
    model::FileHeader h = read_file_header(sides, reads, location);
    if (h.format != model::Format::safetensors) throw model::FormatError(0, "not a safetensors file").in(location);
    for (const auto& t : h.tensors) {
        auto type = dequant::ggml_type_of_dtype(t.type_name);
        sides.source.push_back({t.name, t.type_name, type.value_or(0), type.has_value(), t.dims, {}, file,
                                h.data_start + t.offset, t.bytes});
    }
}

}  // namespace

uint64_t TensorSpan::elements() const {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
}

AuditSides read_sides(const std::string& gguf, const std::string& source, const locate::HttpAccess& access,
                      std::vector<io::BudgetState> known_budgets) {
    AuditSides sides;
    sides.access = access;
    locate::SyncReads reads(access, std::move(known_budgets));
    add_gguf(sides, reads, locate::hub_location_url(gguf, access.hf_endpoint));
    locate::SyncLocator locator(reads);
    const locate::CheckpointFiles checkpoint = locate::locate_checkpoint(locate::hub_location_url(source, access.hf_endpoint), locator);
    sides.header_bytes_read += locator.bytes_read(), sides.header_requests += locator.requests();
    for (const auto& shard : checkpoint.shards) add_shard(sides, reads, shard);
    format::ByteBuffer json = counted(sides, reads, checkpoint.config, [](io::SyncFile& f) { return f.read_whole(); }).first;
    try {
        sides.config = format::parse_model_architecture(json);
    } catch (const model::FormatError& e) {
        throw e.in(checkpoint.config);
    }
    sides.texts = read_checkpoint_texts(reads, checkpoint.config, std::string(json.begin(), json.end()), sides.header_bytes_read,
                                        sides.header_requests);
    sides.budgets = reads.budgets();
    return sides;
}

}  // namespace modelcat::audit
