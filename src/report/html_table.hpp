#pragma once
// The HTML report's quant table: one row per model, its census in type names and enough of its
// location to tell two repos apart, above filters (name, architecture, file type, tensor type, size)
// and a line saying how the rows are sorted.
#include <ostream>
#include <string>
#include <vector>

#include "catalog/report_data.hpp"

namespace modelcat::report {

// Each model's folder without the folder all of them share ("bartowski/Llama-GGUF" beside
// "unsloth/Llama-GGUF"); when they all share one, its last name ("lineup"). At most 40 characters,
// elided in the middle.
std::vector<std::string> location_labels(const std::vector<catalog::ReportModel>& models);

void write_quant_table(std::ostream& out, const std::vector<catalog::ReportModel>& models);

}  // namespace modelcat::report
