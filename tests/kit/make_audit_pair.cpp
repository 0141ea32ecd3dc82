// Writes a Llama-3-style BF16 checkpoint and its GGUF conversions (BF16, and
// with --quants Q8_0 and Q4_K too) for bench/audit.sh. Shape flags default to
// the test kit's small model.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>

#include "generator_usage.hpp"
#include "llama_conversion.hpp"

namespace fs = std::filesystem;
using namespace modelcat::kit;

int main(int argc, char** argv) {
    if (auto rc = usage_instead(argc, argv, "OUT_DIR [--layers N] [--hidden N] [--heads N] [--kv-heads N] [--ffn N] [--vocab N] [--quants]"))
        return *rc;
    LlamaShape shape;
    bool quants = false;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quants") { quants = true; continue; }
        if (i + 1 >= argc) return std::fprintf(stderr, "missing value for %s\n", a.c_str()), 2;
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
        write_llama_checkpoint(dir / "checkpoint", shape);
        write_llama_conversion(dir / "BF16.gguf", shape, {30});
        if (quants) {
            write_llama_conversion(dir / "Q8_0.gguf", shape, {8});
            write_llama_conversion(dir / "Q4_K.gguf", shape, {12});
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_audit_pair: %s\n", e.what());
        return 1;
    }
    return 0;
}
