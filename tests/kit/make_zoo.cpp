// Writes the benchmark zoo: `modelcat-zoo DIR [--models N]` (default 10,000 models).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "generator_usage.hpp"
#include "zoo.hpp"

int main(int argc, char** argv) {
    constexpr const char* kUsage = "DIR [--models N]";
    if (auto rc = modelcat::kit::usage_instead(argc, argv, kUsage)) return *rc;
    unsigned long long models = 10'000;
    const bool with_count = argc == 4 && std::strcmp(argv[2], "--models") == 0;
    if (argc != 2 && !with_count) {
        std::fprintf(stderr, "usage: %s %s\n", argv[0], kUsage);
        return 2;
    }
    if (with_count) {
        char* end = nullptr;
        models = std::strtoull(argv[3], &end, 10);
        if (*end != '\0' || models == 0) {
            std::fprintf(stderr, "modelcat-zoo: --models wants a positive integer, got '%s'\n", argv[3]);
            return 2;
        }
    }
    try {
        const auto n = modelcat::kit::write_zoo(argv[1], models);
        std::printf("models %llu families %llu gguf_files %llu split_sets %llu checkpoints %llu hard_links %llu tensors %llu\n",
                    static_cast<unsigned long long>(n.models), static_cast<unsigned long long>(n.families),
                    static_cast<unsigned long long>(n.gguf_files), static_cast<unsigned long long>(n.split_sets),
                    static_cast<unsigned long long>(n.checkpoints), static_cast<unsigned long long>(n.hard_links),
                    static_cast<unsigned long long>(n.tensors));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "modelcat-zoo: %s\n", e.what());
        return 1;
    }
    return 0;
}
