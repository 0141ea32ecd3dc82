#pragma once
// A replay of llama-quantize's choice of each tensor's type (llama_tensor_get_type
// and llama_tensor_get_type_impl in llama.cpp's src/llama-quant.cpp at the pinned
// revision), from what a header holds: architecture, layer, head and expert
// counts, tensor names and shapes. Pure: no I/O, no catalogue.
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/file_types.hpp"
#include "model/ggml_types.hpp"
#include "model/header.hpp"

namespace modelcat::quantize {

using model::FileHeader;
using model::FileType;
using model::GgmlTypeId;

// The llama.cpp commit whose rules are replayed (that of ../shared/fixtures/llama-cpp/).
inline constexpr std::string_view kLlamaCppRevision = "34af94cd9ab277632e27caeec2d41de2fd091b31";

std::string_view type_name(GgmlTypeId t);  // "Q4_K"
bool is_quantized(GgmlTypeId t);           // a block type (not F32, F16, BF16 or an integer type)
// A type named as llama-quantize accepts it, any case ("q8_0", "Q4_K"); nullopt if none.
std::optional<GgmlTypeId> parse_type(std::string_view name);

// Whether llama.cpp at the revision loads this general.architecture.
bool known_architecture(std::string_view architecture);

// What the quantizer reads of a model: hparams (n_head and n_head_kv of layer 0,
// as llama_hparams::n_gqa() uses them) and every tensor, in file order.
struct TensorDesc {
    std::string name;
    std::vector<uint64_t> ne;  // GGUF dims, ne[0] first
};
struct ModelDesc {
    std::string architecture;
    uint32_t n_layer = 0, n_head = 0, n_head_kv = 0, n_expert = 0;
    std::vector<TensorDesc> tensors;
};
// The description of a GGUF header, or why it cannot be had (a missing key, a
// per-layer head count whose values the header summary did not keep).
std::variant<ModelDesc, std::string> model_desc(const FileHeader& h);

// llama-quantize's options that steer the type choice.
struct TensorTypeOption {
    std::string pattern;  // --tensor-type PATTERN=TYPE: a regex searched in the name (lowercased, as the tool does)
    GgmlTypeId type;
    bool operator==(const TensorTypeOption&) const = default;
};
struct QuantizeOptions {
    std::optional<GgmlTypeId> token_embedding_type;  // --token-embedding-type
    std::optional<GgmlTypeId> output_tensor_type;    // --output-tensor-type
    bool leave_output_tensor = false;            // --leave-output-tensor
    bool pure = false;                           // --pure
    std::vector<TensorTypeOption> tensor_types;  // --tensor-type, first match wins
    bool imatrix = false;                        // --imatrix FILE: only its presence matters
    bool operator==(const QuantizeOptions&) const = default;
    size_t count() const;  // options typed, --imatrix not counted
    // "--pure --token-embedding-type q8_0 --tensor-type attn_q=q8_0", shell-quoted where needed.
    std::string command_line() const;
};

// The order llama-quantize visits tensors in, which its counters (attn_v's
// use_more_bits, dense ffn_down's layer) follow: by layer then name since
// llama.cpp ab3d71f (2024-11-01), the file's own order before.
enum class TensorOrder { by_layer, file };
// Whether the model lists its tensors in by_layer order, as llama-quantize since then writes them.
bool in_by_layer_order(const ModelDesc& model);

struct Replay {
    // Per tensor of the ModelDesc (same order): the type chosen, or nullopt where
    // the tensor is not quantized and keeps the source's type (norms, biases, ...).
    std::vector<std::optional<GgmlTypeId>> types;
    std::string refusal;  // non-empty: llama-quantize stops with this error, `types` is empty
};
Replay replay(const ModelDesc& model, FileType file_type, const QuantizeOptions& options,
              TensorOrder order = TensorOrder::by_layer);

// A model prepared for many replays (a recipe tries hundreds of option sets on one file): what
// depends on its tensors alone (roles, whether each may be quantized, the visit order, each
// --tensor-type pattern's matches) is worked out once. Used by one thread at a time.
class ReplayModel {
public:
    explicit ReplayModel(ModelDesc model);
    const ModelDesc& model() const { return model_; }

private:
    friend Replay replay(const ReplayModel& model, FileType file_type, const QuantizeOptions& options, TensorOrder order);
    const std::vector<char>& matches(const std::string& pattern) const;  // per tensor; throws std::regex_error
    ModelDesc model_;
    std::vector<uint8_t> categories_;  // tensor_category per tensor
    std::vector<char> quantizable_;    // tensor_allows_quantization without --leave-output-tensor
    std::vector<size_t> by_layer_;     // visit order since ab3d71f
    mutable std::unordered_map<std::string, std::vector<char>> matches_;
};
Replay replay(const ReplayModel& model, FileType file_type, const QuantizeOptions& options,
              TensorOrder order = TensorOrder::by_layer);

}  // namespace modelcat::quantize
