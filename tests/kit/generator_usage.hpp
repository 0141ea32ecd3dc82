#pragma once
// The kit's generators take the folder they write as their first argument: `--help`
// or `-h` anywhere prints the usage (exit 0), and an option where the folder goes is a
// usage error (exit 2), never a folder named "--help" filled with samples.
#include <cstdio>
#include <cstring>
#include <optional>

namespace modelcat::kit {

inline std::optional<int> usage_instead(int argc, char** argv, const char* usage) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf("usage: %s %s\n", argv[0], usage);
            return 0;
        }
    if (argc >= 2 && argv[1][0] != '-') return std::nullopt;
    std::fprintf(stderr, "usage: %s %s\n", argv[0], usage);
    return 2;
}

}  // namespace modelcat::kit
