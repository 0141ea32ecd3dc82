#pragma once
// `modelcat report --html`: one self-contained page (inline CSS, SVG and a
// little JavaScript, no network) with the quant table, a policy map per
// model, same-file_type groups side by side and size-against-bits scatters.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "catalog/report_data.hpp"
#include "report/html_text.hpp"

namespace modelcat::report {

// Larger selections are refused: 1,000 models draw in about 1.1-1.4 s (2 MB,
// bench/RESULTS-html.md); more would pass the 2 s a reader should wait.
constexpr size_t kHtmlReportMaxModels = 1000;

// The palette colour of a type name: ggml types by their rank in bits per
// weight (one fixed palette for every report); other names grey.
std::string type_colour(const std::vector<catalog::ReportType>& ggml_types, const std::string& type);

// `catalogue`: the database's path, shown with the date of its last crawl.
void write_html_report(std::ostream& out, const catalog::ReportData& data, const std::string& title,
                       const std::string& catalogue);

}  // namespace modelcat::report
