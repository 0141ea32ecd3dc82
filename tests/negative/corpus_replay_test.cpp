// Replays the fuzz corpora and the crash inputs the fuzzers found through both
// parsers, without libFuzzer: each input must parse, ask for more bytes or be
// a FormatError, and whatever parses must keep the promises the fuzz targets
// check (fuzz/header_checks.hpp), read as a whole file and as a prefix.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "fuzz/header_checks.hpp"
#include "model/error.hpp"

namespace fs = std::filesystem;
using modelcat::model::Format;

namespace {

std::vector<std::string> corpus_dirs() {
    std::vector<std::string> dirs;
    std::istringstream in(MODELCAT_CORPUS_DIRS);
    for (std::string dir; std::getline(in, dir, ':');) dirs.push_back(dir);
    return dirs;
}

class CorpusReplay : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusReplay, EveryInputParsesOrIsAFormatError) {
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(GetParam())) {
        if (!entry.is_regular_file()) continue;
        ++files;
        std::ifstream in(entry.path(), std::ios::binary);
        const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
        for (Format f : {Format::gguf, Format::safetensors})
            for (const std::string& broken : modelcat::fuzzcheck::check_input(f, bytes))
                ADD_FAILURE() << entry.path().filename() << " as " << modelcat::model::format_name(f) << ": " << broken;
    }
    EXPECT_GT(files, 0u) << "no inputs in " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Dirs, CorpusReplay, ::testing::ValuesIn(corpus_dirs()),
                         [](const auto& info) { return fs::path(info.param).filename().string(); });

}  // namespace
