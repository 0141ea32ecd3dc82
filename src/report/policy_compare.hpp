#pragma once
// Compares the policies of models that declare the same file_type: which
// tensors differ, and a one-line account of each difference
// ("Q4_K_L = Q4_K_M + token_embd, output as Q8_0").
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

}  // namespace modelcat::report
