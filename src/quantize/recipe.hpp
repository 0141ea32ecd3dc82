#pragma once
// Which llama-quantize settings made a GGUF file, read from its per-tensor types
// against the replay of quantize/quant_policy.hpp: stock for its declared file type,
// stock plus the fewest options that reproduce it exactly, relabelled (another
// type's policy, general.file_type overridden), custom, or unknown.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/header.hpp"
#include "quantize/quant_policy.hpp"

namespace modelcat::quantize {

using model::FileHeader;
using model::FileType;
using model::GgmlTypeId;

enum class RecipeKind { stock, stock_overrides, custom, relabelled, unknown };
std::string_view recipe_word(RecipeKind k);  // "stock", "stock+overrides", "custom", "relabelled", "unknown"

// Explanations cost one per option typed (a relabelling is one more, --override-kv);
// past this many the file is custom.
inline constexpr size_t kMaxRecipeOptions = 4;

struct Recipe {
    RecipeKind kind = RecipeKind::unknown;
    std::optional<uint32_t> declared_type;  // general.file_type
    std::optional<FileType> quantized_as;   // the type llama-quantize was given (relabelled: not the declared one)
    QuantizeOptions options;                // on top of quantized_as's stock policy; imatrix as the replay assumed
    TensorOrder order = TensorOrder::by_layer;  // file order: the file's tensors are not in llama.cpp's current order
    size_t matching = 0, tensors = 0;       // tensors the declared type's stock replay predicts, of all
    bool imatrix = false;                   // evidence: the file has quantize.imatrix.* keys
    std::vector<std::string> differences;   // custom: per tensor kind and type, against the declared type's stock
    std::string note;                       // unknown: why; otherwise what the reading assumed, if anything
    // Against the stock policy of quantized_as, which needs no other file (so a catalogue can store
    // it): "stock" for a stock file, else the changes and how they were made ("token_embd: Q4_K→Q8_0
    // (--token-embedding-type q8_0)"); the kind's word alone when nothing was replayed.
    std::string why;

    // The options as typed; a relabelling adds --override-kv general.file_type=int:N.
    std::string overrides() const;
    // "34af94cd9ab2", or "34af94cd9ab2 (file order)".
    std::string revision() const;
};

Recipe infer_recipe(const FileHeader& h);
// A split model (gguf-split shards, in order) as the one file it was quantized as: llama-quantize
// chose its types over all the shards' tensors at once. The first shard holds the metadata.
FileHeader joined_shards(std::span<const FileHeader* const> shards);

// How `other` differs from `base` (two files of one file type), tensor kinds grouped
// by their change, then how `other` was made: "token_embd: Q4_K→Q8_0, output:
// Q6_K→Q8_0 (--token-embedding-type q8_0 --output-tensor-type q8_0)".
std::string recipe_why(const FileHeader& base, const FileHeader& other, const Recipe& other_recipe);

}  // namespace modelcat::quantize
