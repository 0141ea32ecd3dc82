#include "locate/checkpoint.hpp"

#include "model/error.hpp"

namespace modelcat::locate {

CheckpointFiles read_checkpoint_index(const std::string& index_location, const Locator& locator) {
    CheckpointFiles c;
    c.index = index_location;
    const std::string text = locator.read_text(index_location);
    try {
        c.parsed_index = format::parse_checkpoint_index({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
    } catch (const model::FormatError& e) {
        throw e.in(index_location);
    }
    for (const auto& shard : c.parsed_index->shards) c.shards.push_back(sibling(index_location, shard));
    c.config = sibling(index_location, "config.json");
    return c;
}

CheckpointFiles locate_checkpoint(const std::string& source, const Locator& locator) {
    if (source.ends_with(".json")) return read_checkpoint_index(source, locator);
    if (source.ends_with(".safetensors")) return {std::nullopt, std::nullopt, {source}, sibling(source, "config.json")};
    const std::string folder = source.ends_with("/") ? source : source + "/";
    const std::string index = folder + "model.safetensors.index.json";
    if (!is_remote(source) && !locator.exists(index)) return {std::nullopt, std::nullopt, {folder + "model.safetensors"}, folder + "config.json"};
    return read_checkpoint_index(index, locator);
}

}  // namespace modelcat::locate
