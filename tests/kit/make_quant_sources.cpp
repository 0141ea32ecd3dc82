// Writes the BF16 source models of kit/quant_sources.hpp and their uniform
// importance matrices (NAME-BF16.gguf, NAME.imatrix) into OUT_DIR, for making
// tests/llama-quantize/ by hand with llama.cpp's own llama-quantize.
#include <cstdio>
#include <exception>
#include <filesystem>

#include "quant_sources.hpp"

namespace fs = std::filesystem;
using namespace modelcat::kit;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    try {
        const fs::path dir = argv[1];
        fs::create_directories(dir);
        for (const QuantSource& m : quant_sources()) {
            write_quant_source(dir / (m.name + "-BF16.gguf"), m);
            write_uniform_imatrix(dir / (m.name + ".imatrix"), m);
            std::printf("%s\n", m.name.c_str());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_quant_sources: %s\n", e.what());
        return 1;
    }
    return 0;
}
