#include "report/html_table.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "model/census.hpp"
#include "report/html_text.hpp"

namespace modelcat::report {

namespace {

constexpr size_t kLocationChars = 40;

std::string params_text(std::optional<int64_t> p) {
    if (!p) return "";
    double v = static_cast<double>(*p);
    return v >= 1e9 ? decimal(v / 1e9, 2) + " B" : v >= 1e6 ? decimal(v / 1e6, 1) + " M" : std::to_string(*p);
}

std::string folder(const std::string& location) {
    size_t slash = location.rfind('/');
    return slash == std::string::npos ? std::string() : location.substr(0, slash + 1);
}

std::string last_name(std::string path) {
    while (!path.empty() && path.back() == '/') path.pop_back();
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The type names of a census with names ("Q4_K:193 F32:66" -> "Q4_K F32"): what the type filter matches.
std::string census_types(const std::string& named) {
    std::istringstream pairs(named);
    std::string out;
    for (std::string pair; pairs >> pair;) out += (out.empty() ? "" : " ") + pair.substr(0, pair.rfind(':'));
    return out;
}

struct FilterChoices {
    std::set<std::string> architectures, file_types, types;
};

void select(std::ostream& out, const char* id, const char* label, const std::set<std::string>& values) {
    out << "<label>" << label << " <select id=\"" << id << "\"><option value=\"\">any</option>";
    for (const auto& v : values) out << "<option>" << html_escape(v) << "</option>";
    out << "</select></label> ";
}

void filters(std::ostream& out, const FilterChoices& c, size_t models) {
    out << "<form class=\"filters\" role=\"search\" onsubmit=\"return false\"><label>name <input id=\"filter\" "
           "type=\"search\" placeholder=\"part of the name\"></label> ";
    select(out, "filter-architecture", "architecture", c.architectures);
    select(out, "filter-file-type", "file type", c.file_types);
    select(out, "filter-type", "holds tensors of type", c.types);
    out << "<label>GiB from <input id=\"filter-min-gib\" type=\"number\" min=\"0\" step=\"any\"></label> <label>to "
           "<input id=\"filter-max-gib\" type=\"number\" min=\"0\" step=\"any\"></label> <output id=\"shown\">"
        << models << " of " << models << " models shown</output></form>\n";
}

}  // namespace

std::vector<std::string> location_labels(const std::vector<catalog::ReportModel>& models) {
    std::vector<std::string> dirs;
    for (const auto& m : models) dirs.push_back(folder(m.location));
    std::vector<std::string> out;
    if (dirs.empty()) return out;
    size_t common = dirs[0].size();
    for (const auto& d : dirs) common = std::mismatch(d.begin(), d.begin() + std::min(common, d.size()), dirs[0].begin()).first - d.begin();
    size_t cut = common == 0 ? std::string::npos : dirs[0].rfind('/', common - 1);
    size_t from = cut == std::string::npos ? 0 : cut + 1;  // where the first differing folder name starts
    for (const auto& d : dirs) {
        std::string label = d.size() > from ? d.substr(from, d.size() - from - 1) : last_name(d.substr(0, from));
        out.push_back(elide_middle(label, kLocationChars));
    }
    return out;
}

void write_quant_table(std::ostream& out, const std::vector<catalog::ReportModel>& models) {
    std::vector<std::string> places = location_labels(models);
    std::vector<std::string> censuses;
    FilterChoices choices;
    for (const auto& m : models) {
        censuses.push_back(model::census_with_names(m.census));
        choices.architectures.insert(m.architecture);
        choices.file_types.insert(m.file_type_name.empty() ? m.model_kind : m.file_type_name);
        std::istringstream types(census_types(censuses.back()));
        for (std::string t; types >> t;) choices.types.insert(t);
    }
    out << "<h2 id=\"quants\">Quants</h2>\n";
    filters(out, choices, models.size());
    out << "<p id=\"sort-order\" class=\"sort-order\">Sorted by architecture, then GiB, then name. Click a column heading "
           "to sort by it.</p>\n<table class=\"quants\"><thead><tr>";
    for (const char* h : {"name", "location", "architecture", "file type", "GiB", "params", "bits/weight", "majority", "census"})
        out << "<th tabindex=\"0\"" << (std::string(h) == "architecture" ? " aria-sort=\"ascending\"" : "") << ">" << h << "</th>";
    out << "</tr></thead><tbody>\n";
    for (size_t i = 0; i < models.size(); ++i) {
        const auto& m = models[i];
        std::string file_type = html_escape(m.file_type_name.empty() ? m.model_kind : m.file_type_name);
        out << "<tr data-id=\"m" << m.id << "\" data-model=\"" << html_escape(m.name) << "\" data-architecture=\""
            << html_escape(m.architecture) << "\" data-file-type=\"" << file_type << "\" data-types=\""
            << html_escape(census_types(censuses[i])) << "\" data-bytes=\"" << (m.file_bytes ? std::to_string(*m.file_bytes) : "")
            << "\"><td><a href=\"#m" << m.id << "\">" << html_escape(m.name) << "</a></td><td class=\"location\" title=\""
            << html_escape(m.location) << "\">" << html_escape(places[i]) << "</td><td>" << html_escape(m.architecture)
            << "</td><td data-v=\"" << (m.file_type ? *m.file_type : -1) << "\">" << file_type << "</td><td data-v=\""
            << m.file_bytes.value_or(0) << "\">" << gib_text(m.file_bytes) << "</td><td data-v=\"" << m.params.value_or(0) << "\">"
            << params_text(m.params) << "</td><td>" << (m.bits_per_weight ? decimal(*m.bits_per_weight, 4) : "") << "</td><td>"
            << html_escape(m.majority_type) << "</td><td class=\"census\">" << html_escape(censuses[i]) << "</td></tr>\n";
    }
    out << "</tbody></table>\n";
}

}  // namespace modelcat::report
