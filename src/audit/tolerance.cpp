#include "audit/tolerance.hpp"

#include <array>

#include "model/ggml_types.hpp"

namespace modelcat::audit {

namespace {

// Whole tensor: a few times the worst clean tensor of llama-quantize's output on
// ../shared/fixtures/llama-cpp, and far below the ~2 of rows from another tensor.
// Block: above the worst clean block there, below what one flipped exponent bit
// of a block's scale does to it (docs/audit.md, "Ceilings").
constexpr std::array kTolerances{
    Tolerance{"Q8_0", 2e-4, 2e-2},   Tolerance{"Q8_1", 2e-4, 2e-2},   Tolerance{"Q8_K", 2e-4, 2e-2},
    Tolerance{"Q6_K", 2e-3, 5e-2},   Tolerance{"Q5_0", 5e-3, 8e-2},   Tolerance{"Q5_1", 5e-3, 3e-2},
    Tolerance{"Q5_K", 5e-3, 0.1},    Tolerance{"Q4_0", 2e-2, 0.15},   Tolerance{"Q4_1", 2e-2, 6e-2},
    Tolerance{"Q4_K", 2e-2, 0.15},   Tolerance{"IQ4_NL", 2e-2, 0.12}, Tolerance{"IQ4_XS", 2e-2, 0.12},
    Tolerance{"MXFP4", 5e-2, 0.13},  Tolerance{"NVFP4", 5e-2, 0.1},  Tolerance{"Q3_K", 8e-2, 0.15},
    Tolerance{"IQ3_S", 8e-2, 0.18},  Tolerance{"IQ3_XXS", 0.1, 0.18},  Tolerance{"Q2_K", 0.3, 0.3},
    Tolerance{"IQ2_S", 0.3, 0.4},    Tolerance{"IQ2_XS", 0.3, 0.4},   Tolerance{"IQ2_XXS", 0.3, 0.6},
    Tolerance{"IQ1_M", 0.5, 0.6},    Tolerance{"IQ1_S", 0.5, 0.75},    Tolerance{"Q2_0", 0.8, 1.05},
    Tolerance{"Q1_0", 0.75, 1.05},   Tolerance{"TQ2_0", 0.9, 1.05},   Tolerance{"TQ1_0", 0.9, 1.05},
};

}  // namespace

const Tolerance* tolerance(uint32_t ggml_type) {
    const model::GgmlType* t = model::find_ggml_type(ggml_type);
    if (!t) return nullptr;
    for (const auto& row : kTolerances)
        if (row.type == t->name) return &row;
    return nullptr;
}

std::span<const Tolerance> tolerance_table() { return kTolerances; }

}  // namespace modelcat::audit
