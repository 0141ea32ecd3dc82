// Replays fuzz/corpus/json (the fuzz_json target's inputs) through the index,
// config.json and Hub listing parsers: each returns or throws FormatError.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "format/checkpoint.hpp"
#include "format/hub_listing.hpp"

namespace fs = std::filesystem;
using namespace modelcat::format;

namespace {

template <typename Parse>
std::string outcome(Parse parse, std::span<const uint8_t> bytes) {
    try {
        parse(bytes);
        return "ok";
    } catch (const FormatError& e) {
        return std::string("FormatError: ") + e.what();
    }  // anything else escapes and fails the test
}

TEST(JsonCorpus, EveryInputParsesOrIsAFormatError) {
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(MODELCAT_JSON_CORPUS)) {
        ++files;
        std::ifstream in(entry.path(), std::ios::binary);
        const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
        SCOPED_TRACE(entry.path().filename());
        outcome([](auto b) { return parse_checkpoint_index(b); }, bytes);
        outcome([](auto b) { return parse_model_config(b); }, bytes);
        outcome([](auto b) { return parse_hub_listing(b); }, bytes);
    }
    EXPECT_GE(files, 4u);
}

TEST(JsonCorpus, SeedsReadAsExpected) {
    auto read = [](const char* name) {
        std::ifstream in(fs::path(MODELCAT_JSON_CORPUS) / name, std::ios::binary);
        return std::vector<uint8_t>{std::istreambuf_iterator<char>(in), {}};
    };
    CheckpointIndex idx = parse_checkpoint_index(read("index.json"));
    EXPECT_EQ(idx.shards.size(), 2u);
    EXPECT_EQ(idx.total_size, 128u);
    EXPECT_EQ(parse_model_config(read("config.json")).size(), 9u);
    EXPECT_EQ(parse_hub_listing(read("listing.json")).size(), 2u);  // the directory is skipped
    EXPECT_EQ(outcome([](auto b) { return parse_checkpoint_index(b); }, read("index-escape.json")),
              "FormatError: index: shard name '../x.safetensors' for tensor 'a' escapes the checkpoint folder");
}

}  // namespace
