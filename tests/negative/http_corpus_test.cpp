// Replays fuzz/corpus/http (the fuzz_http target's inputs) through the parsers of a server's header
// values and of split-set names, without libFuzzer: each keeps the promises fuzz/http_checks.hpp names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "fuzz/http_checks.hpp"

namespace fs = std::filesystem;

TEST(HttpCorpus, EveryInputKeepsTheParsersPromises) {
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(MODELCAT_HTTP_CORPUS)) {
        ++files;
        std::ifstream in(entry.path(), std::ios::binary);
        const std::string text{std::istreambuf_iterator<char>(in), {}};
        for (const std::string& broken : modelcat::fuzzcheck::check_http_input(text)) ADD_FAILURE() << entry.path().filename() << ": " << broken;
    }
    EXPECT_GE(files, 10u);  // the seeds: every header kind, and split names
}
