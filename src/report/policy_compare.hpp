#pragma once
// Compares the policies of models that declare the same file_type: which
// tensors differ, and a one-line account of each: its recipe (catalog's recipes) where the replay
// knows the model, else how it differs from the group's first policy ("Q4_K_L = Q4_K_M + token_embd,
// output as Q8_0").
#include <set>
#include <string>
#include <vector>

#include "catalog/report_data.hpp"

namespace modelcat::report {

// Tensor names whose type differs between the models, or that some lack.
std::set<std::string> differing_tensors(const std::vector<const catalog::ReportModel*>& models);

// The names without their common prefix up to its last '-' or '.', so
// "Meta-Llama-3.1-8B-Instruct-Q4_K_M" reads "Q4_K_M".
std::vector<std::string> short_names(const std::vector<const catalog::ReportModel*>& models);

// "<other> = <base> + <tensors> as <type>; ...", tensors grouped by their type in `other`.
std::string policy_summary(const catalog::ReportModel& base, const std::string& base_name, const catalog::ReportModel& other,
                           const std::string& other_name);

// The model's recipe in the recipes report's words, and what differs from its type's stock policy:
// "Q4_K_L: stock+overrides — token_embd: Q4_K→Q8_0; output: Q6_K→Q8_0 (--token-embedding-type q8_0
// --output-tensor-type q8_0)", "Q4_K_M: stock". Empty when the model has no known recipe.
std::string recipe_summary(const catalog::ReportModel& model, const std::string& name);

}  // namespace modelcat::report
