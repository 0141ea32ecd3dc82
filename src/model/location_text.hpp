#pragma once
// What tables of models (the terminal's and the HTML report's) show of their locations: below the
// crawl's rooms and the reports', which both need it.
#include <string>
#include <vector>

namespace modelcat::model {

// The folder every non-empty location lies under, with its '/' ("/srv/mirror/", "hf://owner/"); ""
// when they share none: what a table of locations leaves out to tell repos apart.
std::string shared_folder(const std::vector<std::string>& locations);

}  // namespace modelcat::model
