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

namespace {

// A parser's answer to any bytes: a value, or FormatError; anything else escapes and aborts.
template <typename Parse>
void returns_or_refuses(Parse parse, std::span<const uint8_t> bytes) {
    try {
        parse(bytes);
    } catch (const modelcat::model::FormatError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace format = modelcat::format;
    const std::span<const uint8_t> bytes(data, size);
    returns_or_refuses([](auto b) { return format::parse_checkpoint_index(b); }, bytes);
    returns_or_refuses([](auto b) { return format::parse_model_config(b); }, bytes);
    returns_or_refuses([](auto b) { return format::parse_model_architecture(b); }, bytes);
    returns_or_refuses([](auto b) { return format::parse_hub_listing(b); }, bytes);
    returns_or_refuses([](auto b) { return format::parse_hub_models(b); }, bytes);
    returns_or_refuses([](auto b) { return format::parse_ollama_manifest(b); }, bytes);
    return 0;
}
