#include "crawl/model_checks.hpp"

#include "format/json_text.hpp"

#include <filesystem>
#include <set>

namespace modelcat::crawl {

namespace {

// What keeps the files from forming a whole, found in the file at `location`.
[[noreturn]] void fail_in(const std::string& location, std::optional<uint64_t> offset, const std::string& message,
                          std::string json_path = {}) {
    if (!json_path.empty()) throw model::FormatError::at_json_path(std::move(json_path), message).in(location);
    throw model::FormatError(offset, message).in(location);
}

std::optional<uint64_t> key_offset(const model::FileHeader& h, std::string_view key) {
    for (const auto& e : h.metadata)
        if (e.key == key) return e.offset;
    return std::nullopt;
}

// gguf-split writes split.no (0-based), split.count and split.tensors.count
// (the total over all shards); every shard must agree with its name.
void check_split_set(std::span<const FileRecord> shards) {
    const int64_t count = static_cast<int64_t>(shards.size());
    uint64_t tensors = 0;
    for (const auto& s : shards) tensors += s.header.tensors.size();
    for (int64_t i = 0; i < count; ++i) {
        const auto& s = shards[static_cast<size_t>(i)];
        auto no = model::metadata_integer(s.header, "split.no");
        auto n = model::metadata_integer(s.header, "split.count");
        if (no && *no != i)
            fail_in(s.location, key_offset(s.header, "split.no"), "split.no is " + std::to_string(*no) + " but the file name says shard " +
                                                           std::to_string(i + 1) + " of " + std::to_string(count));
        if (n && *n != count)
            fail_in(s.location, key_offset(s.header, "split.count"), "split.count is " + std::to_string(*n) + " but the set has " +
                                                           std::to_string(count) + " shards");
        if (i == 0 && !n) fail_in(s.location, std::nullopt, "first shard of a split set has no split.count");
        if (auto total = model::metadata_integer(s.header, "split.tensors.count"); total && static_cast<uint64_t>(*total) != tensors)
            fail_in(s.location, key_offset(s.header, "split.tensors.count"), "split.tensors.count is " + std::to_string(*total) + " but the " +
                                                           std::to_string(count) + " shards hold " + std::to_string(tensors) + " tensors");
    }
}

// The index's weight_map must name exactly the shards' tensors, and its
// total_size the bytes of their data.
void check_checkpoint(const format::CheckpointIndex& idx, const std::string& index_location,
                      std::span<const FileRecord> shards) {
    uint64_t data = 0;
    std::set<std::string> seen;
    for (const auto& s : shards) {
        std::string shard_name = std::filesystem::path(s.location).filename().string();
        for (const auto& t : s.header.tensors) {
            data += t.bytes;
            seen.insert(t.name);
            auto it = idx.weight_map.find(t.name);
            if (it == idx.weight_map.end())
                fail_in(s.location, t.info_offset, "tensor '" + t.name + "' is not in the index's weight_map");
            if (std::filesystem::path(it->second).filename() != shard_name)
                fail_in(s.location, t.info_offset, "tensor '" + t.name + "' is in " + shard_name +
                                                                " but the index says " + it->second);
        }
    }
    for (const auto& [name, shard] : idx.weight_map) {
        if (seen.count(name)) continue;
        std::string path = "weight_map.";
        format::append_json_string(path, name);
        fail_in(index_location, std::nullopt, "index maps tensor '" + name + "' to " + shard + ", which does not hold it",
                         path);
    }
    if (idx.total_size && *idx.total_size != data)
        fail_in(index_location, std::nullopt, "metadata.total_size is " + std::to_string(*idx.total_size) +
                                                           " but the shards hold " + std::to_string(data) + " bytes of tensor data",
                         "metadata.total_size");
}

}  // namespace

void check_model_files(const locate::ModelPlan& plan, std::span<const FileRecord> data) {
    if (plan.kind == locate::ModelPlan::Kind::split_gguf) check_split_set(data);
    if (plan.parsed_index) check_checkpoint(*plan.parsed_index, *plan.index, data);
}

}  // namespace modelcat::crawl
