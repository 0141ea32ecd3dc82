#pragma once
// An inline SVG scatter of file size against measured bits per weight, one
// labelled point per model, with a <title> for screen readers.
#include <string>
#include <vector>

#include "catalog/report_data.hpp"

namespace modelcat::report {

// `models` all have file_bytes and bits_per_weight; `labels` are their short names.
std::string size_bits_scatter(const std::string& architecture, const std::vector<const catalog::ReportModel*>& models,
                              const std::vector<std::string>& labels);

}  // namespace modelcat::report
