#pragma once
// The HTML report's inline stylesheet and scripts (no network, no libraries).
#include <string_view>

namespace modelcat::report {

extern const std::string_view kHtmlReportCss;
// Runs first: records script errors in <body data-js-errors> so a headless check sees them.
extern const std::string_view kHtmlReportErrorHook;
// Draws the policy maps from their data-map JSON, marks differing cells in groups,
// sorts the quant table by a clicked column (saying so) and filters the models.
extern const std::string_view kHtmlReportScript;

}  // namespace modelcat::report
