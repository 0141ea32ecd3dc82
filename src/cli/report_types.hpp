#pragma once
// The HTML report reads its data through the catalogue (catalog/report_data.hpp).
#include "catalog/report_data.hpp"

namespace modelcat::cli {

using catalog::ReportData;
using catalog::ReportGroup;
using catalog::ReportModel;
using catalog::ReportSelection;
using catalog::ReportTensor;
using catalog::ReportType;

}  // namespace modelcat::cli
