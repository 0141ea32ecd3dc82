#pragma once
// GGUF files that llama.cpp loads, one or more per architecture the memory
// module supports: the tensor names and shapes its loader requires, a
// byte-level BPE tokenizer, zero (sparse) tensor data. Two scales: `small`
// (hidden sizes of a few hundred; llama.cpp allocates them for real in a
// second) and `real` (the shapes of published models; sparse files that the
// bench loads with llama.cpp's no-allocation pass).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gguf_writer.hpp"

namespace modelcat::kit {

enum class ArchScale { small, real };

struct ArchFile {
    std::string name;  // file stem: "qwen3moe-30b-a3b-q4_k"
    std::string arch;  // general.architecture
    GgufWriter gguf;
};

std::vector<ArchFile> arch_files(ArchScale scale);

// Writes every file of `scale` into `dir` (created if missing) as NAME.gguf; returns their paths.
std::vector<std::filesystem::path> write_arch_files(const std::filesystem::path& dir, ArchScale scale);

}  // namespace modelcat::kit
