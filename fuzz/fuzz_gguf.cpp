// libFuzzer target: the GGUF header parser over any bytes, read as a whole file
// and as the start of longer ones (header_checks.hpp). A broken promise aborts
// with its reason, so libFuzzer keeps the input as a crash.
#include <cstdio>
#include <cstdlib>

#include "fuzz/header_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    for (const std::string& broken : modelcat::fuzzcheck::check_input(modelcat::model::Format::gguf, {data, size})) {
        std::fprintf(stderr, "broken promise: %s\n", broken.c_str());
        std::abort();
    }
    return 0;
}
