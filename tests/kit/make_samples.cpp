// Writes the sample store: the eight Llama 3.1 8B quants as sparse replicas,
// and with --checkpoint the BF16 safetensors source and its GGUF conversion.
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>

#include "llama31.hpp"

namespace fs = std::filesystem;
using namespace modelcat::kit;

namespace {

void report(const fs::path& p) { std::printf("%s %ju\n", p.c_str(), static_cast<uintmax_t>(fs::file_size(p))); }

}  // namespace

int main(int argc, char** argv) {
    const bool checkpoint = argc == 3 && std::strcmp(argv[2], "--checkpoint") == 0;
    if (argc != 2 && !checkpoint) {
        std::fprintf(stderr, "usage: %s OUT_DIR [--checkpoint]\n", argv[0]);
        return 2;
    }
    try {
        const fs::path dir = argv[1];
        for (const auto& p : write_llama31_lineup(dir)) report(p);
        if (checkpoint) {
            for (const auto& p : write_llama31_safetensors_checkpoint(dir / "Meta-Llama-3.1-8B-Instruct")) report(p);
            const fs::path bf16 = dir / llama31_file_name("BF16");
            llama31_bf16_gguf().write(bf16);
            report(bf16);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_samples: %s\n", e.what());
        return 1;
    }
    return 0;
}
