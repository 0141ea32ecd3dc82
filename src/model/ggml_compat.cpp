#include "model/ggml_compat.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string_view>

#include "model/ggml_types.hpp"

namespace modelcat::model {

namespace {

constexpr size_t kGgmlMaxName = 64;  // GGML_MAX_NAME: names must be shorter

uint64_t pad(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string quoted(const TensorInfo& t) { return "tensor '" + t.name + "'"; }

void check_file(const FileHeader& h, std::vector<GgmlRefusal>& out) {
    if (h.version == 1) out.push_back({"version", "GGUF version 1: ggml reads versions 2 and 3 only"});
    if (h.big_endian)
        out.push_back({"byte_order", "big-endian file: ggml reads the host's byte order (its version field reads as " +
                                         std::to_string(uint64_t{h.version} << 24) + ")"});
    std::set<std::string> dups(h.duplicate_keys.begin(), h.duplicate_keys.end());
    for (const auto& k : dups) out.push_back({"duplicate_key", "duplicate key '" + k + "': ggml refuses a key given twice"});
    for (const auto& e : h.metadata)
        if (const auto* a = std::get_if<ArraySummary>(&e.value); a && a->element_type == ValueType::array)
            out.push_back({"nested_array", "key '" + e.key + "' is an array of arrays: ggml reads flat arrays only"});
}

// Whether two names are one C string: sorting views costs one allocation, a set one per name.
bool c_names_repeat(const FileHeader& h) {
    std::vector<std::string_view> names;
    names.reserve(h.tensors.size());
    for (const auto& t : h.tensors) names.emplace_back(t.name.c_str());
    std::sort(names.begin(), names.end());
    return std::adjacent_find(names.begin(), names.end()) != names.end();
}

// ggml copies names into char[64] (a NUL ends them) and compares them as C strings.
void check_names(const FileHeader& h, std::vector<GgmlRefusal>& out) {
    const bool repeats = c_names_repeat(h);
    std::set<std::string_view> seen;
    for (const auto& t : h.tensors) {
        if (t.name.size() >= kGgmlMaxName)
            out.push_back({"name_length", quoted(t) + ": name of " + std::to_string(t.name.size()) +
                                              " bytes; ggml's limit is " + std::to_string(kGgmlMaxName - 1)});
        std::string_view c_name(t.name.c_str());
        if (repeats && !seen.insert(c_name).second)
            out.push_back({"duplicate_name", quoted(t) + ": ggml reads the name up to its NUL byte as '" +
                                                 std::string(c_name) + "', the name of an earlier tensor"});
    }
}

// ggml's test: INT64_MAX / ne[k] <= ne[0] * ... * ne[k-1] for k = 1..3, with absent dims 1.
bool element_count_refused(const TensorInfo& t) {
    if (t.n_elements == 0) return false;
    int64_t ne[4] = {1, 1, 1, 1};
    for (size_t d = 0; d < t.dims.size() && d < 4; ++d) ne[d] = static_cast<int64_t>(t.dims[d]);
    const int64_t max = std::numeric_limits<int64_t>::max();
    return max / ne[1] <= ne[0] || max / ne[2] <= ne[0] * ne[1] || max / ne[3] <= ne[0] * ne[1] * ne[2];
}

// Per tensor: element count, type id, whole blocks per row. False when
// ggml cannot size the tensor (its offset checks then mean nothing).
bool check_tensor(const TensorInfo& t, std::vector<GgmlRefusal>& out) {
    if (element_count_refused(t))
        out.push_back({"element_count", quoted(t) + ": " + std::to_string(t.n_elements) +
                                            " elements; ggml refuses counts this close to 2^63"});
    const GgmlType* gt = t.type_id ? find_ggml_type(*t.type_id) : nullptr;
    if (!gt) {
        out.push_back({"type_id", quoted(t) + ": type id " + (t.type_id ? std::to_string(*t.type_id) : "none") +
                                      " is not a ggml type ggml reads (0-" + std::to_string(ggml_types().back().id) +
                                      ", removed ids excluded)"});
        return false;
    }
    uint64_t row = t.dims.empty() ? 1 : t.dims[0];
    if (row % gt->block_size != 0) {
        out.push_back({"row_blocks", quoted(t) + ": ne[0] = " + std::to_string(row) + " is not a multiple of the " +
                                         std::string(gt->name) + " block size " + std::to_string(gt->block_size)});
        return false;
    }
    return t.expected_bytes.has_value();
}

// Each tensor must start exactly where the previous ones end, each padded to
// the alignment; ggml reports the first that does not.
void check_layout(const FileHeader& h, std::vector<GgmlRefusal>& out) {
    bool sized = true;
    for (const auto& t : h.tensors) sized = check_tensor(t, out) && sized;
    if (!sized || h.tensors.empty()) return;
    uint64_t running = 0;
    for (const auto& t : h.tensors) {
        if (t.offset != running) {
            out.push_back({"offset", quoted(t) + ": offset " + std::to_string(t.offset) + ", ggml expects " +
                                         std::to_string(running) + " (the tensors before it, each padded to " +
                                         std::to_string(h.alignment) + " bytes)"});
            return;
        }
        running += pad(*t.expected_bytes, h.alignment);
    }
    uint64_t room = h.file_size > h.data_start ? h.file_size - h.data_start : 0;
    if (running > room)
        out.push_back({"data_size", "the tensor data, each tensor padded to " + std::to_string(h.alignment) +
                                        " bytes, takes " + std::to_string(running) + " bytes but the file holds " +
                                        std::to_string(room) + " after the data start " + std::to_string(h.data_start)});
}

}  // namespace

std::vector<GgmlRefusal> ggml_refusals(const FileHeader& h) {
    std::vector<GgmlRefusal> out;
    if (h.format != Format::gguf) return out;
    check_file(h, out);
    check_names(h, out);
    check_layout(h, out);
    return out;
}

}  // namespace modelcat::model
