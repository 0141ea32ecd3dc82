// libFuzzer target for the JSON that travels with models: a checkpoint's
// model.safetensors.index.json, its config.json (as metadata and as the memory engine's shape), the
// Hub's tree listing and its models API page, and an Ollama manifest.
// Each parser must return or throw FormatError; anything else aborts.
#include <cstddef>
#include <cstdint>
#include <span>

#include "format/checkpoint.hpp"
#include "format/hub_listing.hpp"
#include "format/model_config.hpp"
#include "format/ollama_manifest.hpp"
#include "model/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    try {
        modelcat::format::parse_checkpoint_index(bytes);
    } catch (const modelcat::model::FormatError&) {
    }
    try {
        modelcat::format::parse_model_config(bytes);
    } catch (const modelcat::model::FormatError&) {
    }
    try {
        modelcat::format::parse_hub_listing(bytes);
    } catch (const modelcat::model::FormatError&) {
    }
    try {
        modelcat::format::parse_hub_models(bytes);
    } catch (const modelcat::model::FormatError&) {
    }
    try {
        modelcat::format::parse_model_architecture(bytes);
    } catch (const modelcat::model::FormatError&) {
    }
    try {
        modelcat::format::parse_ollama_manifest(bytes);
    } catch (const modelcat::model::FormatError&) {
    }
    return 0;
}
