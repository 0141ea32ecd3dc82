#pragma once
// Sizes and parameter counts as people read them, one rule for the terminal table and the HTML
// report: three significant digits and a unit. Machine formats keep the exact values.
#include <string>

namespace modelcat::model {

// Binary units: "4.58 GiB", "512 B".
std::string size_text(double bytes);

// Decimal units: "8.03 B" (billions), "135 M", "4.10 K"; below 1,000 the number itself.
std::string params_text(double params);

}  // namespace modelcat::model
