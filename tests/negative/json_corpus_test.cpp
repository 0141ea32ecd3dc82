// Replays fuzz/corpus/json (the fuzz_json target's inputs) through the index,
// config.json (as metadata and as the memory engine's shape), Hub listing, models page and Ollama manifest parsers: each input either parses, or is not
// JSON at all (an error without a place), or is JSON the parser refuses with
// the JSON path of what it refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <simdjson.h>

#include "format/checkpoint.hpp"
#include "format/hub_listing.hpp"
#include "format/model_config.hpp"
#include "format/ollama_manifest.hpp"
#include "model/error.hpp"

namespace fs = std::filesystem;
using namespace modelcat::format;
using namespace modelcat::model;

namespace {

template <typename Parse>
std::string outcome(Parse parse, std::span<const uint8_t> bytes) {
    try {
        parse(bytes);
        return "ok";
    } catch (const FormatError& e) {
        return std::string("FormatError") + (e.json_path().empty() ? "" : " at " + e.json_path()) + ": " + e.what();
    }  // anything else escapes and fails the test
}

bool is_json(const std::vector<uint8_t>& bytes) {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    return parser.parse(reinterpret_cast<const char*>(bytes.data()), bytes.size()).get(root) == simdjson::SUCCESS;
}

// The outcome's class: ok, "not JSON" (no place), or refused at a JSON path.
void expect_classed(const std::string& outcome, bool json) {
    if (outcome == "ok") return;
    if (json) EXPECT_TRUE(outcome.starts_with("FormatError at ")) << outcome;
    else EXPECT_NE(outcome.find("is not valid JSON"), std::string::npos) << outcome;
}

TEST(JsonCorpus, EveryInputParsesIsNotJsonOrIsRefusedAtAPath) {
    size_t files = 0, json = 0, refused = 0;
    for (const auto& entry : fs::directory_iterator(MODELCAT_JSON_CORPUS)) {
        ++files;
        std::ifstream in(entry.path(), std::ios::binary);
        const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
        SCOPED_TRACE(entry.path().filename());
        const bool valid = is_json(bytes);
        json += valid;
        for (const std::string& o : {outcome([](auto b) { return parse_checkpoint_index(b); }, bytes),
                                     outcome([](auto b) { return parse_model_config(b); }, bytes),
                                     outcome([](auto b) { return parse_hub_listing(b); }, bytes),
                                     outcome([](auto b) { return parse_hub_models(b); }, bytes),
                                     outcome([](auto b) { return parse_model_architecture(b); }, bytes),
                                     outcome([](auto b) { return parse_ollama_manifest(b); }, bytes)}) {
            expect_classed(o, valid);
            refused += valid && o != "ok";
        }
    }
    EXPECT_GE(files, 4u);
    EXPECT_GT(json, 0u);     // the corpus exercises both classes
    EXPECT_GT(refused, 0u);
}

TEST(JsonCorpus, HandWrittenInputsReadAsExpected) {
    auto read = [](const char* name) {
        std::ifstream in(fs::path(MODELCAT_JSON_CORPUS) / name, std::ios::binary);
        return std::vector<uint8_t>{std::istreambuf_iterator<char>(in), {}};
    };
    CheckpointIndex idx = parse_checkpoint_index(read("index.json"));
    EXPECT_EQ(idx.shards.size(), 2u);
    EXPECT_EQ(idx.total_size, 128u);
    EXPECT_EQ(parse_model_config(read("config.json")).size(), 9u);
    EXPECT_EQ(parse_hub_listing(read("listing.json")).size(), 2u);  // the directory is skipped
    EXPECT_EQ(parse_ollama_manifest(read("ollama-manifest.json")).size(), 5u);  // the model, template, system, params and license
    const auto models = parse_hub_models(read("models.json"));
    ASSERT_EQ(models.size(), 2u);
    EXPECT_EQ(models[0].repo, "org/Llama-3.1-8B-GGUF");
    EXPECT_EQ(models[0].modified_ms, 1'721'746'116'123);
    EXPECT_EQ(models[1].last_modified, "2024-07-22T00:00:00Z");  // as given; without milliseconds too
    EXPECT_EQ(models[1].sha, "89abcdef0123456789abcdef0123456789abcdef");
    EXPECT_EQ(outcome([](auto b) { return parse_hub_models(b); }, read("listing.json")),
              "FormatError at [0].id: Hub models page entry has no \"id\" of the form owner/name");
    EXPECT_EQ(outcome([](auto b) { return parse_checkpoint_index(b); }, read("index-escape.json")),
              "FormatError at weight_map.\"a\": index: shard name '../x.safetensors' escapes the checkpoint folder (a '..' "
              "component)");
}

}  // namespace
