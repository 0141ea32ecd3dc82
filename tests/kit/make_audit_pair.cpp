// Writes a Llama-3-style BF16 checkpoint and its GGUF conversions (BF16, and
// with --quants Q8_0 and Q4_K too) for bench/audit.sh; --random-blocks TYPE,...
// adds TYPE.gguf files of valid pseudo-random blocks (kit::random_blocks: for
// timing those types' decoders, their audits fail). Files already in OUT_DIR are
// kept. Shape flags default to the test kit's small model.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "generator_usage.hpp"
#include "model/ggml_types.hpp"
#include "llama_conversion.hpp"

namespace fs = std::filesystem;
using namespace modelcat::kit;

int main(int argc, char** argv) {
    if (auto rc = usage_instead(argc, argv, "OUT_DIR [--layers N] [--hidden N] [--heads N] [--kv-heads N] [--ffn N] [--vocab N] [--quants]"
                                            " [--random-blocks TYPE,...]"))
        return *rc;
    LlamaShape shape;
    bool quants = false;
    std::vector<std::string> random;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quants") { quants = true; continue; }
        if (i + 1 >= argc) return std::fprintf(stderr, "missing value for %s\n", a.c_str()), 2;
        if (a == "--random-blocks") {
            std::stringstream list(argv[++i]);
            for (std::string t; std::getline(list, t, ',');) random.push_back(t);
            continue;
        }
        uint32_t v = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
        if (a == "--layers") shape.layers = v;
        else if (a == "--hidden") shape.hidden = v;
        else if (a == "--heads") shape.heads = v;
        else if (a == "--kv-heads") shape.kv_heads = v;
        else if (a == "--ffn") shape.ffn = v;
        else if (a == "--vocab") shape.vocab = v;
        else return std::fprintf(stderr, "unknown flag %s\n", a.c_str()), 2;
    }
    try {
        const fs::path dir = argv[1];
        auto write = [&](const std::string& name, ConversionOptions o) {  // files already there are kept
            if (!fs::exists(dir / name)) write_llama_conversion(dir / name, shape, o);
        };
        if (!fs::exists(dir / "checkpoint")) write_llama_checkpoint(dir / "checkpoint", shape);
        write("BF16.gguf", {30});
        if (quants) write("Q8_0.gguf", {8}), write("Q4_K.gguf", {12});
        for (const auto& name : random) {
            const modelcat::model::GgmlType* t = nullptr;
            for (const auto& g : modelcat::model::ggml_types())
                if (g.name == name) t = &g;
            if (!t) return std::fprintf(stderr, "unknown ggml type %s\n", name.c_str()), 2;
            write(name + ".gguf", {t->id, ConversionDefect::none, true});
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_audit_pair: %s\n", e.what());
        return 1;
    }
    return 0;
}
