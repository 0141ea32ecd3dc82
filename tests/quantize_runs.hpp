#pragma once
// What llama.cpp's own llama-quantize wrote, as the tests read it: the runs of
// tests/llama-quantize/results.tsv (headers cut at their data start, parsed with
// the real file's size) and of ../shared/fixtures/llama-cpp/ (whole files).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/header.hpp"
#include "quantize/quant_policy.hpp"

namespace modelcat::test {

extern const std::filesystem::path kRunsDir;     // tests/llama-quantize
extern const std::filesystem::path kFixtureDir;  // ../shared/fixtures/llama-cpp

struct QuantizeRun {
    std::string name;                  // file stem: "llama-32L-Q4_K_M-pure"
    std::string model;                 // source stem: "llama-32L" (the fixture's: "tiny")
    std::string type;                  // llama-quantize's type argument: "Q4_K_M"
    std::vector<std::string> options;  // as passed, one argument each
    int exit_code = 0;
    std::optional<uint64_t> file_size;  // of the file written; none when it refused
    std::string error;                  // its error line when it refused
};

// Every run of tests/llama-quantize/results.tsv, in its order.
std::vector<QuantizeRun> quantize_runs();
// The runs of ../shared/fixtures/llama-cpp/ (quantize-results.tsv and PROVENANCE.md's variants).
std::vector<QuantizeRun> fixture_runs();

// A GGUF header read from as much of the file as it needs (throws if it is not one);
// a header cut at its data start needs the size of the file it was cut from.
model::FileHeader read_header(const std::filesystem::path& path, uint64_t file_size);
model::FileHeader read_header(const std::filesystem::path& path);
// Where a run's file is: the fixture's whole file, or tests/llama-quantize's header cut at its data.
std::filesystem::path header_path(const QuantizeRun& run);
// The header of a run's file (throws for a run that wrote none).
model::FileHeader run_header(const QuantizeRun& run);

// The run's options as the replay takes them (llama-quantize's parsing of the same
// arguments; --override-kv and the --imatrix file's name play no part in type choice).
quantize::QuantizeOptions run_options(const QuantizeRun& run);

bool typed_options(const QuantizeRun& run);  // options that steer the type choice
bool relabelling(const QuantizeRun& run);    // --override-kv (general.file_type)

// Option sets that write the same file as fewer options (or none), by run name, and what the
// recipe therefore names: the simplest account of the file.
const std::map<std::string, std::string>& equivalents();

// What the recipe of a run's file must say: its word and, but for custom, its overrides.
struct ExpectedRecipe {
    std::string word;
    std::optional<std::string> overrides;
};
ExpectedRecipe expected_recipe(const QuantizeRun& run);

}  // namespace modelcat::test
