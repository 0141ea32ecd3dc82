#pragma once
// The rows a model is stored as: derived by crawl (a pure function of the
// files read), written as they are by the catalogue. Plain data.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/header.hpp"
#include "model/memory_terms.hpp"

namespace modelcat::model {

struct TensorRow {
    std::string name;
    std::optional<int64_t> layer;  // N of blk.N. / model.layers.N.
    std::string kind;              // the name without its layer prefix
    int64_t n_dims = 0;
    std::string dims;              // JSON, the file's own order
    int64_t n_elements = 0;
    std::optional<int64_t> type_id;
    std::string type_name;
    int64_t offset = 0, bytes = 0;
    std::optional<int64_t> expected_bytes;
    std::optional<double> bits_per_weight;
    int64_t info_offset = 0;
};

struct FileRow {
    std::string location;
    std::string role;  // data | index | config
    int64_t shard = 0;
    std::string format;
    std::optional<int64_t> version, alignment;
    std::optional<std::string> endianness;
    int64_t size = 0, header_bytes = 0, data_start = 0, declared_kv_count = 0, tensor_count = 0;
    int64_t bytes_read = 0, requests = 0;
    double read_ms = 0;
    std::optional<int64_t> mtime_ns, inode, device;
    std::optional<std::string> header_hash;
    std::optional<std::string> etag, last_modified, sha256, xet_hash, final_url, revision;
    std::optional<int64_t> http_status, resolver_calls, storage_reads;  // remote files: requests by Hub budget
    std::vector<model::MetadataEntry> metadata;
    std::vector<TensorRow> tensors;
    std::vector<model::Warning> warnings;
    // GGUF files: why ggml's reader would refuse it (check, reason); empty when it would read it.
    std::optional<std::vector<std::pair<std::string, std::string>>> ggml_refusals;
    std::optional<std::string> tensor_index_hash, metadata_hash;  // data files (schema/current.sql)
};

struct CensusRow {
    std::optional<int64_t> type_id;
    std::string type_name;
    int64_t tensors = 0, params = 0, bytes = 0;
    std::optional<double> bits_per_weight;
};

// Written at crawl time so that views need not recompute them (models in schema/current.sql).
struct ModelRow {
    std::string location, name, format;
    std::optional<std::string> architecture;
    std::optional<int64_t> file_type;
    int64_t tensor_count = 0, kv_count = 0, params = 0, file_bytes = 0, header_bytes = 0;
    std::string policy_hash, shape_hash;
    std::optional<model::MetadataValue> block_count;  // <architecture>.block_count as the file holds it
    std::optional<int64_t> majority_type_id;
    std::optional<std::string> majority_type_name;
    std::string census;  // quant_summary's census string
    // Schema 12: what kind of artifact, what tells re-uploads apart.
    std::string kind;
    std::optional<std::string> chat_template_hash, tensor_index_hash;
};

// A policy_layers row: one tensor kind at one type, and its layers.
struct PolicyRow {
    std::string tensor_kind;
    std::optional<int64_t> type_id;
    std::string type_name;
    int64_t tensors = 0;
    std::optional<std::string> layers;  // ascending, comma-separated; none when no tensor has a layer
};

// How a store (Hugging Face cache, Ollama, LM Studio) names a model: a
// store_names row. Names are recorded once per crawl, after its models.
struct StoreNameRow {
    std::string store;  // hf_cache | ollama | lmstudio
    std::string root;   // the store's folder, or ollama://REGISTRY
    std::string name;   // owner/name@commit/file, library/llama3.1:8b, publisher/repo/file
    std::string role = "model";  // model | projector | adapter (Ollama layers)
    std::optional<std::string> repo, revision, refs, digest;
    std::string path;      // where the name lives in the store: a snapshot link, a manifest, the file
    std::string location;  // files.location of the model's first data file
};

// What the Hub's models API last said of a repository a many-repository input lists (hub_repos).
struct HubRepoRow {
    std::string scope, repo, last_modified, sha;
    std::string status = "ok";  // ok | pending | gone | left
    bool seen = true;           // written: shown by this crawl's pages (else seen_crawl_id stays)
};

// A many-repository input's last listing that reached where it could stop (hub_listings).
struct HubListingRow {
    std::string scope;
    std::optional<std::string> newest;  // the newest lastModified it showed
    std::optional<double> full_at;      // read: when the last listing of every page started, seconds since the epoch
    bool full = false;                  // written: this crawl read every page
};

// What a server last announced of a request budget (rate_budgets).
struct RateBudgetRow {
    std::string host, budget;
    int64_t remaining = 0;
    double resets_at = 0;  // seconds since the epoch
    std::optional<int64_t> quota;
    std::optional<double> window_s;
};

// Which llama-quantize settings made a GGUF model (a recipes row; quantize/recipe.hpp reads it).
struct RecipeRow {
    std::string recipe;                   // stock | stock+overrides | custom | relabelled | unknown
    std::optional<int64_t> quantized_as;  // the file type llama-quantize was given; none when unknown
    std::string overrides;                // the options as typed, space-separated; empty for stock
    int64_t matching = 0, tensors = 0;    // tensors the declared type's stock replay predicts, of all
    std::string revision;                 // the llama.cpp commit replayed, "34af94cd9ab2"
    bool imatrix = false;                 // quantize.imatrix.* keys present
    std::string differences;              // custom: JSON array of per-kind differences; else "[]"
    std::string why;                      // the types that differ from quantized_as's stock policy, and how they were made
    std::string note;                     // unknown: why; else what the reading assumed, if anything
};

struct ModelRows {
    ModelRow model;
    std::vector<FileRow> files;  // data files first, in shard order
    std::vector<CensusRow> census;
    std::vector<PolicyRow> policy;
    std::optional<RecipeRow> recipe;  // GGUF models
    MemoryRow memory;                  // memory_terms and memory_caches
};

}  // namespace modelcat::model
