#pragma once
// The two sides of an audit, from their headers: the GGUF's tensors and the
// checkpoint's (a folder, its model.safetensors.index.json, or one
// .safetensors with config.json beside it), with absolute byte offsets.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/model_config.hpp"
#include "io/http_fetcher.hpp"
#include "io/read_route.hpp"
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
    size_t file = 0;              // index into AuditInputs::files
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

struct AuditInputs {
    std::vector<AuditFile> files;    // [0] the GGUF, then the shards
    io::HttpOptions http;            // how remote files are read
    std::string architecture;        // general.architecture
    std::vector<TensorSpan> gguf, source;
    format::ModelConfig config;
    uint64_t header_bytes_read = 0, header_requests = 0;  // header and JSON reads, apart from tensor data
};

bool is_remote(const std::string& location);  // http:// or https://

// Throws io::IoError (cannot read) or model::FormatError (bad header, index or config).
AuditInputs open_inputs(const std::string& gguf, const std::string& source);

}  // namespace modelcat::audit
