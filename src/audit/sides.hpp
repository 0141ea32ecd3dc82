#pragma once
// The two sides of an audit, from their headers: the GGUF's tensors and the
// checkpoint's (a folder, its model.safetensors.index.json, or one
// .safetensors with config.json beside it), with absolute byte offsets. The
// inputs are located (locate/) and read (io::SyncFile) as the crawl's are.
#include <cstdint>
#include <string>
#include <vector>

#include "audit/checkpoint_files.hpp"
#include "format/model_config.hpp"
#include "io/rate_budget.hpp"
#include "io/read_route.hpp"
#include "locate/access.hpp"
#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::audit {

// One tensor's bytes in one of the audit's files.
struct TensorSpan {
    std::string name;
    std::string type;             // GGUF type name or safetensors dtype
    uint32_t ggml_type = 0;       // the element encoding (safetensors F32/F16/BF16 map to ggml ids)
    bool known_type = false;      // false: a dtype or type this build cannot decode
    std::vector<uint64_t> shape;  // row-major, outermost first (GGUF: ne reversed)
    std::vector<uint64_t> ne;     // GGUF only: the file's own dims, ne[0] first
    size_t file = 0;              // index into AuditSides::files
    uint64_t offset = 0;          // absolute, in the file
    uint64_t bytes = 0;
    uint64_t elements() const;
};

// A file of the audit as its header read left it: tensor reads start from there.
struct AuditFile {
    io::ReadRoute route;               // where reads go (a remote file's redirect target, once known)
    uint64_t size = 0;
    std::vector<uint8_t> first_bytes;  // remote files: the first bytes the header read fetched
};

struct AuditSides {
    locate::HttpAccess access;       // how remote files are read
    std::vector<io::BudgetState> budgets;  // what the servers announced while the headers were read
    std::vector<AuditFile> files;    // the GGUF (every file of a split set), then the checkpoint's shards
    std::string architecture;        // general.architecture
    std::vector<TensorSpan> gguf, source;
    format::ModelConfig config;
    model::FileHeader gguf_header;   // its tokenizer arrays' values kept for the metadata audit
    CheckpointTexts texts;           // config.json and the tokenizer files beside it
    uint64_t header_bytes_read = 0, header_requests = 0;  // header and JSON reads, apart from tensor data
};

// GGUF and SOURCE may be paths, http(s):// URLs or hf:// locations; remote files are read as
// `access` says, starting from the budgets `known_budgets` (earlier runs') leave. Throws io::IoError
// (cannot read) or model::FormatError, in its file (bad header, index or config).
AuditSides read_sides(const std::string& gguf, const std::string& source, const locate::HttpAccess& access,
                      std::vector<io::BudgetState> known_budgets = {});

}  // namespace modelcat::audit
