#pragma once
// A generated zoo for benchmarks at scale: GGUF quants of six architectures
// (real tensor names and shapes, 26-42 layers) under three uploaders' policies
// (one with _L variants, one with shifted promotions), split sets, safetensors
// checkpoints and hard-linked mirror copies. Every file is sparse (tensor data
// a hole) with a small tokenizer, and the same arguments write the same bytes.
#include <cstdint>
#include <filesystem>

namespace modelcat::kit {

// What a zoo holds; `models` is what a crawl catalogues (a split set, a
// checkpoint and a hard link count one each).
struct ZooCounts {
    uint64_t models = 0;
    uint64_t gguf_files = 0;
    uint64_t split_sets = 0;
    uint64_t checkpoints = 0;
    uint64_t hard_links = 0;
    uint64_t tensors = 0;  // tensor rows a crawl writes
    uint64_t families = 0;
};

// Writes exactly `models` models under `dir` (created if missing).
ZooCounts write_zoo(const std::filesystem::path& dir, uint64_t models);

}  // namespace modelcat::kit
