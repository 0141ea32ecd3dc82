// Writes the sample store: the eight Llama 3.1 8B quants as sparse replicas,
// and with --checkpoint the BF16 safetensors source and its GGUF conversion;
// with --stores, a home folder holding an HF cache, an Ollama store and an
// LM Studio folder of small models (kit/stores.hpp) instead; with --arch small|real,
// the files of every architecture the memory engine supports (kit/arch_files.hpp);
// with --vocab, models with vocabularies of 32K to 512K tokens (kit/ranked_vocab.hpp).
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>

#include "arch_files.hpp"
#include "generator_usage.hpp"
#include "llama31.hpp"
#include "ranked_vocab.hpp"
#include "stores.hpp"

namespace fs = std::filesystem;
using namespace modelcat::kit;

namespace {

void report(const fs::path& p) { std::printf("%s %ju\n", p.c_str(), static_cast<uintmax_t>(fs::file_size(p))); }

}  // namespace

int main(int argc, char** argv) {
    constexpr const char* kUsage = "OUT_DIR [--checkpoint | --stores | --vocab | --arch small|real]";
    if (auto rc = usage_instead(argc, argv, kUsage)) return *rc;
    const bool checkpoint = argc == 3 && std::strcmp(argv[2], "--checkpoint") == 0;
    const bool stores = argc == 3 && std::strcmp(argv[2], "--stores") == 0;
    const bool vocab = argc == 3 && std::strcmp(argv[2], "--vocab") == 0;
    const bool arch = argc == 4 && std::strcmp(argv[2], "--arch") == 0 &&
                      (std::strcmp(argv[3], "small") == 0 || std::strcmp(argv[3], "real") == 0);
    if (argc != 2 && !checkpoint && !stores && !vocab && !arch) {
        std::fprintf(stderr, "usage: %s %s\n", argv[0], kUsage);
        return 2;
    }
    try {
        const fs::path dir = argv[1];
        if (stores) {
            fs::remove_all(dir);  // the same stores every time: blobs are named by their content
            const SampleStores s = write_sample_stores(dir);
            std::printf("%s\n%s\n%s\n", s.hub.c_str(), s.ollama.c_str(), s.lmstudio.c_str());
            return 0;
        }
        if (vocab) {
            for (const auto& p : write_vocab_models(dir)) report(p);
            return 0;
        }
        if (arch) {
            const ArchScale scale = std::strcmp(argv[3], "small") == 0 ? ArchScale::small : ArchScale::real;
            for (const auto& p : write_arch_files(dir, scale)) report(p);
            return 0;
        }
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
