#pragma once
// Turns what the user typed (files, directories, list files) into the
// ordered list of files to read.
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

// Reads a --list file: one input per line; blank lines and '#' comments skipped.
std::vector<std::string> read_input_list(std::istream& in);

// Directories are walked recursively for *.gguf, *.safetensors and
// *.safetensors.index.json; a named .txt or .list file is read as a list of
// inputs; any other named file is taken whatever its extension.
ExpandedInputs expand_inputs(const std::vector<std::string>& inputs);

// "Meta-Llama-3.1-8B-Instruct-Q4_K_M" for ".../Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf".
std::string model_name_for(const std::string& location);

}  // namespace modelcat::locate
