#pragma once
// `modelcat report --html`: one self-contained page (inline CSS, SVG and a
// little JavaScript, no network) with the quant table, a policy map per
// model, same-file_type groups side by side and size-against-bits scatters.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "catalog/report_data.hpp"

namespace modelcat::cli {

// Larger selections are refused: 1,000 models draw in about 1.1-1.4 s (2 MB,
// bench/RESULTS-html.md); more would pass the 2 s a reader should wait.
constexpr size_t kHtmlReportMaxModels = 1000;

// Text for HTML content and quoted attributes: & < > " ' escaped, invalid
// UTF-8 replaced by U+FFFD (names come from untrusted files).
std::string html_escape(std::string_view s);

// The palette colour of a type name: ggml types by their rank in bits per
// weight (one fixed palette for every report); other names grey.
std::string type_colour(const std::vector<catalog::ReportType>& ggml_types, const std::string& type);

void write_html_report(std::ostream& out, const catalog::ReportData& data, const std::string& title);

// Opens `db_path` read-only, writes the page to `out_path`; returns the exit code
// (2 with a message on stderr when there is no catalogue or the selection is too large).
int run_html_report(const std::string& db_path, const std::string& out_path, const catalog::ReportSelection& selection);

}  // namespace modelcat::cli
