#pragma once
// Turns what the user typed (files, directories, list files) into the
// ordered list of files to read.
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "model/error.hpp"

namespace modelcat::locate {

struct ExpandedInputs {
    std::vector<std::string> files;      // absolute paths as given (symlinks not resolved), de-duplicated
    std::vector<model::Failure> problems;  // inputs that name nothing readable
};

// The problem with a path whose name is not valid UTF-8 (the catalogue's text is), if it is not.
std::optional<model::Failure> non_utf8_path(const std::string& path);

// A list file's inputs, or why it is not one (a model file, over the cap, not UTF-8 text): never parsed then.
struct InputList {
    std::vector<std::string> inputs;
    std::optional<model::Failure> problem;
};
inline constexpr uint64_t kMaxInputListBytes = uint64_t{64} << 20;  // a list of a million paths fits

// One input per line; blank lines and '#' comments skipped. `name` labels a problem (stdin: "-").
InputList read_input_list(std::istream& in, const std::string& name);
// The same for a file, refused by its name or size before a byte is read.
InputList read_input_list_file(const std::string& path);

// Directories are walked recursively for *.gguf, *.safetensors and
// *.safetensors.index.json; a named .txt or .list file is read as a list of
// inputs; any other named file is taken whatever its extension.
ExpandedInputs expand_inputs(const std::vector<std::string>& inputs);

// "Meta-Llama-3.1-8B-Instruct-Q4_K_M" for ".../Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf".
std::string model_name_for(const std::string& location);

}  // namespace modelcat::locate
