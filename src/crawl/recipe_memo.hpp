#pragma once
// The recipe row of a GGUF model depends on a few metadata keys (of the importance matrix's, only
// whether there are any) and on its tensors' names, types and shapes; quants of one base model by
// one policy, mirrors and re-uploads share all of them, and inferring a custom recipe replays
// llama-quantize hundreds of times. So rows are remembered by exactly those inputs (the whole text
// of them, not a hash), a few thousand at most, for the process's life, by the crawl's derive threads.
#include <functional>
#include <string>

#include "model/header.hpp"
#include "model/rows.hpp"

namespace modelcat::crawl {

// What infer_recipe (its why included) reads of a (joined) GGUF header, as one string.
std::string recipe_inputs(const model::FileHeader& whole);

// The row remembered for `whole`'s inputs, else `compute()`'s, remembered.
model::RecipeRow remembered_recipe(const model::FileHeader& whole, const std::function<model::RecipeRow()>& compute);

}  // namespace modelcat::crawl
