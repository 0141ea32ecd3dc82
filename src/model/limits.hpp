#pragma once
// Resource caps for untrusted input, and their defaults: the one place they
// are given (the CLI's help is written from these values).
#include <cstdint>
#include <string>
#include <vector>

namespace modelcat::model {

// A capped input is an error, never an OOM.
struct Limits {
    uint64_t max_header_bytes = 256ull << 20;
    uint64_t max_metadata_entries = 1u << 20;
    uint64_t max_array_length = 1ull << 28;
    uint64_t max_tensors = 1u << 20;
    uint32_t max_nesting = 8;
    uint32_t max_alignment = 1u << 20;
    uint64_t max_string_bytes = 64ull << 20;
    uint64_t array_json_cap = 64;  // arrays up to this length are stored as JSON...
    uint64_t array_json_bytes = 1u << 20;  // ...while that JSON, nested arrays' included, stays under this (then: hash only)
    // Arrays whose key ends with one of these are kept as JSON whatever their length, while the
    // JSON stays under kept_json_bytes (then: hash only). The audit's token lists; the crawl keeps none.
    std::vector<std::string> kept_arrays{};
    uint64_t kept_json_bytes = 0;

    // Fixed caps on side files and servers (docs/security.md lists each with its value).
    static constexpr uint32_t max_shards = 10'000;  // data files of one model: named by an index, or promised by a split name
    static constexpr uint32_t max_manifest_layers = 256;  // an Ollama manifest's layers (real ones hold under 10)
    static constexpr uint32_t max_listing_pages = 100;      // pages of one Hub listing (1,000 entries each are asked for)
    static constexpr uint32_t max_listing_entries = 10'000; // entries on one listing page
    static constexpr uint32_t max_model_pages = 1'000;     // pages of one models API listing (1,000 repositories each)
    static constexpr uint64_t max_ref_bytes = 4096;          // an HF cache refs/ file (a 40-hex commit and a newline)
    static constexpr uint64_t max_query_file_bytes = 1 << 20;  // a report's .sql file given to `query`
    static constexpr uint64_t max_table_bytes = 64ull << 20;    // a result held to print as an aligned table (csv, json stream)
    static constexpr uint64_t max_vocab_size = 1u << 22;      // a config.json vocab_size the audit pads to (real ones: under 300,000)
};

}  // namespace modelcat::model
