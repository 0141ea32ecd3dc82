#pragma once
// Layer and kind of a tensor name: "blk.3.ffn_down.weight" is layer 3, kind
// "ffn_down.weight"; "model.layers.3.mlp.down_proj.weight" is layer 3, kind
// "mlp.down_proj.weight"; a name without a layer is its own kind.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelcat::model {

struct TensorName {
    std::optional<uint32_t> layer;
    std::string kind;
};

TensorName split_tensor_name(std::string_view name);

}  // namespace modelcat::model
