#include "report/html_table.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "model/location_text.hpp"
#include "model/census.hpp"
#include "model/quantity_text.hpp"
#include "model/utf8.hpp"
#include "report/html_text.hpp"

namespace modelcat::report {

namespace {

constexpr size_t kLocationChars = 40;

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
    std::vector<std::string> locations;
    for (const auto& m : models) locations.push_back(m.location);
    const std::string shared = model::shared_folder(locations);
    std::vector<std::string> out;
    for (const auto& m : models) {
        const std::string d = folder(m.location);
        std::string label = d.size() > shared.size() ? d.substr(shared.size(), d.size() - shared.size() - 1)
                            : m.location.empty()     ? std::string()
                                                     : last_name(shared);
        out.push_back(model::elide_middle(label, kLocationChars));
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
            << (m.params ? model::params_text(static_cast<double>(*m.params)) : "") << "</td><td>"
            << (m.bits_per_weight ? decimal(*m.bits_per_weight, 4) : "") << "</td><td>" << html_escape(m.majority_type) << "</td><td class=\"census\">" << html_escape(censuses[i]) << "</td></tr>\n";
    }
    out << "</tbody></table>\n";
}

}  // namespace modelcat::report
