#include "report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "format/json_text.hpp"
#include "model/utf8.hpp"
#include "report/html_assets.hpp"
#include "report/html_scatter.hpp"
#include "report/html_table.hpp"
#include "report/html_text.hpp"
#include "report/policy_compare.hpp"

namespace modelcat::report {

namespace {

// The per-map data the page's script expands into cells, as JSON:
// v = variants [type, dims, bytes, palette class, deviates], r = layered rows
// [name prefix, kind, variant per layer or -1], n = layer-less tensors [name, variant].
constexpr int64_t kMaxLayerColumns = 1024;  // a hostile layer number must not make a million columns
// The cells a page's maps draw (rows x layers, plus layer-less tensors; group copies count again): a
// 6.1 M-cell page took a browser 76 s. 1,000 models of 80 layers and 9 kinds draw 720,000.
constexpr int64_t kMaxPageCells = 1'000'000;

struct MapEncoder {
    const catalog::ReportModel& model;
    const std::map<std::string, int>& type_class;
    std::map<std::tuple<std::string, std::string, int64_t>, int> variants;
    std::string variant_json;
    int64_t cell_count = 0;  // what the script will draw: set by encode()

    int variant(const catalog::ReportTensor& t) {
        auto key = std::make_tuple(t.type, t.dims, t.bytes);
        auto [it, fresh] = variants.emplace(key, static_cast<int>(variants.size()));
        if (fresh) {
            if (!variant_json.empty()) variant_json += ",";
            variant_json += "[";
            format::append_json_string(variant_json, t.type);
            variant_json += ",";
            format::append_json_string(variant_json, t.dims);
            bool deviates = !model.majority_type.empty() && t.type != model.majority_type && t.type != "F32";
            variant_json += ',';
            variant_json += std::to_string(t.bytes);
            variant_json += ',';
            variant_json += std::to_string(type_class.at(t.type));
            variant_json += deviates ? ",1]" : ",0]";
        }
        return it->second;
    }

    std::string encode() {
        int64_t columns = 0;
        std::vector<std::pair<std::string, std::string>> rows;  // (prefix, kind) in first-seen order
        std::map<std::pair<std::string, std::string>, std::vector<int>> cells;
        std::string flat;
        for (const auto& t : model.tensors) {
            std::string lead = t.layer ? std::to_string(*t.layer) + "." + t.kind : "";
            // a layer no crawl writes (a crafted catalogue's -1) indexes no column: the tensor is drawn layer-less
            bool layered = t.layer && *t.layer >= 0 && *t.layer < kMaxLayerColumns && t.name.size() > lead.size() &&
                           t.name.ends_with(lead);
            if (!layered) {
                ++cell_count;
                flat += flat.empty() ? "[" : ",[";
                format::append_json_string(flat, t.name);
                flat += ',';
                flat += std::to_string(variant(t));
                flat += ']';
                continue;
            }
            auto key = std::make_pair(t.name.substr(0, t.name.size() - lead.size()), t.kind);
            auto [it, fresh] = cells.emplace(key, std::vector<int>());
            if (fresh) rows.push_back(key);
            if (it->second.size() <= static_cast<size_t>(*t.layer)) it->second.resize(*t.layer + 1, -1);
            it->second[*t.layer] = variant(t);
            columns = std::max(columns, *t.layer + 1);
        }
        cell_count += static_cast<int64_t>(rows.size()) * columns;
        std::string out = "{\"L\":" + std::to_string(columns) + ",\"r\":[";
        for (size_t i = 0; i < rows.size(); ++i) {
            out += i ? ",[" : "[";
            format::append_json_string(out, rows[i].first);
            out += ",";
            format::append_json_string(out, rows[i].second);
            out += ",[";
            const auto& v = cells[rows[i]];
            for (size_t l = 0; l < v.size(); ++l) {
                if (l) out += ',';
                out += std::to_string(v[l]);
            }
            out += "]]";
        }
        return out + "],\"n\":[" + flat + "],\"v\":[" + variant_json + "]}";
    }
};

// JSON inside a single-quoted attribute: only ' and & (and < >, for safety) need escaping.
std::string json_attribute(const std::string& json) {
    std::string out;
    out.reserve(json.size() + 16);
    for (char c : json) {
        switch (c) {
            case '\'': out += "&#39;"; break;
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            default: out += c;
        }
    }
    return out;
}

// Palette classes: t<rank> for ggml types; names outside the table follow the table.
std::map<std::string, int> type_classes(const catalog::ReportData& data) {
    std::map<std::string, int> out;
    for (size_t i = 0; i < data.ggml_types.size(); ++i) out[data.ggml_types[i].name] = static_cast<int>(i);
    int next = static_cast<int>(data.ggml_types.size());
    for (const auto& m : data.models)
        for (const auto& t : m.tensors)
            if (!out.contains(t.type)) out[t.type] = next++;
    return out;
}

struct Writer {
    std::ostream& out;
    const catalog::ReportData& data;
    std::map<std::string, int> classes = type_classes(data);
    int64_t page_cells = 0;  // the drawn maps' and, as the groups are written, their copies' (before drawn_cells: it counts them)
    std::map<int64_t, int64_t> drawn_cells = plan_maps();  // model id -> cells of its map, for the maps drawn

    // The model maps the page draws, in page order, while their cells fit; the groups' copies of them
    // come out of what is left.
    std::map<int64_t, int64_t> plan_maps() {
        std::map<int64_t, int64_t> drawn;
        for (const auto& m : data.models) {
            if (!m.model_kind.empty()) continue;
            MapEncoder map{m, classes, {}, {}};
            map.encode();
            if (page_cells + map.cell_count > kMaxPageCells) continue;
            page_cells += map.cell_count;
            drawn[m.id] = map.cell_count;
        }
        return drawn;
    }

    void not_drawn(int64_t cells) {
        out << "<p class=\"not-drawn\">Not drawn: this map's " << cells << " cells would pass the page's " << kMaxPageCells
            << " (narrow the report with --pattern or --model).</p>";
    }

    void styles() {
        out << "<style>\n" << kHtmlReportCss;
        std::set<std::string> used;
        for (const auto& m : data.models)
            for (const auto& t : m.tensors) used.insert(t.type);
        for (const auto& t : used) out << ".t" << classes.at(t) << "{background:" << type_colour(data.ggml_types, t) << "}\n";
        out << "</style>\n";
    }

    void legend() {
        // type -> (bytes, elements), for measured rates; doubles, as a crafted catalogue's sizes pass int64 when summed
        std::map<std::string, std::pair<double, double>> seen;
        for (const auto& m : data.models)
            for (const auto& t : m.tensors) {
                seen[t.type].first += static_cast<double>(t.bytes);
                seen[t.type].second += static_cast<double>(t.elements);
            }
        std::vector<std::pair<double, std::string>> order;
        for (const auto& [type, be] : seen) {
            auto it = std::find_if(data.ggml_types.begin(), data.ggml_types.end(), [&](const auto& g) { return g.name == type; });
            double bpw = it != data.ggml_types.end() ? it->bits_per_weight : be.second ? be.first * 8 / be.second : 0;
            order.emplace_back(bpw, type);
        }
        std::sort(order.begin(), order.end());
        out << "<ul class=\"legend\" aria-label=\"legend: ggml types by bits per weight, then the marks\">";
        for (const auto& [bpw, type] : order)
            out << "<li data-type=\"" << html_escape(type) << "\" data-colour=\"" << type_colour(data.ggml_types, type)
                << "\"><i class=\"t" << classes.at(type) << "\"></i>" << html_escape(type) << " <small>" << decimal(bpw, 4)
                << "</small></li>";
        out << "<li data-mark=\"dev\"><i class=\"mark-dev\"></i>not the model's majority type</li><li data-mark=\"none\"><i "
               "class=\"mark-none\"></i>no such tensor in this layer</li><li data-mark=\"differs\"><i class=\"mark-differs\"></i>type differs "
               "between a group's policies</li><li data-mark=\"point\"><i class=\"point\"></i>a model in the scatter (its size and measured "
               "bits per weight)</li></ul>\n";
    }

    void model_sections() {
        out << "<h2 id=\"maps\">Policy maps</h2>\n";
        for (const auto& m : data.models) {
            if (!m.model_kind.empty()) continue;
            std::string name = html_escape(m.name);
            out << "<section class=\"model\" id=\"m" << m.id << "\" data-model=\"" << name << "\"><h3>" << name
                << "</h3>\n<p>" << html_escape(m.architecture) << " · " << html_escape(m.file_type_name) << " · " << gib_text(m.file_bytes)
                << " GiB · " << (m.bits_per_weight ? decimal(*m.bits_per_weight, 4) : "?") << " bits/weight · majority "
                << html_escape(m.majority_type) << "</p>\n";
            MapEncoder map{m, classes, {}, {}};
            const std::string json = map.encode();
            if (drawn_cells.count(m.id))
                out << "<div class=\"policy-map\" data-model=\"" << name << "\" data-map='" << json_attribute(json) << "'></div>";
            else not_drawn(map.cell_count);
            out << "</section>\n";
        }
    }

    // One map per distinct policy of the group (a zoo repeats policies), the smallest model first.
    void groups() {
        out << "<h2 id=\"groups\">Same file_type, different policy</h2>\n";
        if (data.groups.empty())
            out << "<p class=\"no-groups\">No two models of this selection declare the same file_type with different "
                   "policies.</p>\n";
        for (const auto& g : data.groups) {
            std::vector<const catalog::ReportModel*> policies;
            std::map<std::string, size_t> sharing;  // policy_hash -> models
            for (size_t i : g.members)
                if (sharing[data.models[i].policy_hash]++ == 0) policies.push_back(&data.models[i]);
            std::vector<std::string> names = short_names(policies);
            std::string differs = "[";
            for (const auto& t : differing_tensors(policies)) {
                if (differs.size() > 1) differs += ",";
                format::append_json_string(differs, t);
            }
            out << "<section class=\"policy-group\" data-architecture=\"" << html_escape(g.architecture)
                << "\" data-file-type=\"" << html_escape(g.file_type_name) << "\" data-differs='" << json_attribute(differs + "]")
                << "'><h3>" << html_escape(g.architecture) << " · " << html_escape(g.file_type_name) << ": " << g.members.size()
                << " models, " << policies.size() << " policies</h3>\n";
            for (size_t i = 0; i < policies.size(); ++i) {
                std::string summary = recipe_summary(*policies[i], names[i]);
                if (summary.empty() && i > 0) summary = policy_summary(*policies[0], names[0], *policies[i], names[i]);
                if (!summary.empty()) out << "<p class=\"summary\">" << html_escape(summary) << "</p>\n";
            }
            out << "<div class=\"side\">";
            for (size_t i = 0; i < policies.size(); ++i) {
                size_t more = sharing[policies[i]->policy_hash] - 1;
                out << "<figure><figcaption><a href=\"#m" << policies[i]->id << "\">" << html_escape(names[i]) << "</a>"
                    << (more ? " and " + std::to_string(more) + " more with this policy" : "")
                    << "</figcaption>";
                auto drawn = drawn_cells.find(policies[i]->id);
                if (drawn != drawn_cells.end() && page_cells + drawn->second <= kMaxPageCells) {
                    page_cells += drawn->second;
                    out << "<div class=\"policy-map\" data-model=\"" << html_escape(policies[i]->name) << "\" data-copy=\"m"
                        << policies[i]->id << "\"></div>";
                } else if (drawn != drawn_cells.end()) {
                    not_drawn(drawn->second);
                }
                out << "</figure>";
            }
            out << "</div></section>\n";
        }
    }

    void scatters() {
        std::map<std::string, std::vector<const catalog::ReportModel*>> by_arch;
        for (const auto& m : data.models)
            if (m.model_kind.empty() && m.file_bytes && m.bits_per_weight) by_arch[m.architecture].push_back(&m);
        out << "<h2 id=\"scatter\">Size against bits</h2>\n";
        if (by_arch.empty()) out << "<p>No model of this selection has both a size and parameters.</p>\n";
        for (const auto& [arch, models] : by_arch) out << size_bits_scatter(arch, models, short_names(models)) << "\n";
    }

    void other_kinds() {
        bool any = std::any_of(data.models.begin(), data.models.end(), [](const auto& m) { return !m.model_kind.empty(); });
        if (!any) return;
        out << "<h2 id=\"other\">Other kinds (listed, not mapped)</h2>\n<ul class=\"other\">";
        for (const auto& m : data.models)
            if (!m.model_kind.empty())
                out << "<li id=\"m" << m.id << "\" data-model=\"" << html_escape(m.name) << "\">" << html_escape(m.name) << " · "
                    << html_escape(m.model_kind) << " · " << html_escape(m.architecture) << "</li>";
        out << "</ul>\n";
    }

    // "last crawl #3 finished <time>2026-12-02 05:41:18 UTC</time>" (the crawls table's newest row).
    static std::string crawl_text(const std::optional<catalog::ReportCrawl>& crawl) {
        if (!crawl) return "never crawled";
        auto when = [](const std::string& iso) {
            std::string shown = iso.size() >= 19 && iso[10] == 'T' ? iso.substr(0, 10) + " " + iso.substr(11, 8) + " UTC" : iso;
            return "<time datetime=\"" + html_escape(iso) + "\">" + html_escape(shown) + "</time>";
        };
        std::string head = "last crawl #" + std::to_string(crawl->id);
        return crawl->finished_at.empty() ? head + " started " + when(crawl->started_at) + ", not finished"
                                          : head + " finished " + when(crawl->finished_at);
    }

    void page(const std::string& title, const std::string& catalogue) {
        out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
               "content=\"width=device-width\"><title>"
            << html_escape(title) << "</title>\n";
        styles();
        out << "<script>" << kHtmlReportErrorHook << "</script>\n</head><body>\n<h1>" << html_escape(title)
            << "</h1>\n<p class=\"source\">Catalogue <code>" << html_escape(catalogue) << "</code> · " << crawl_text(data.last_crawl)
            << "</p>\n<p>" << data.models.size() << " models · <a href=\"#quants\">quants</a> · <a href=\"#maps\">policy maps</a> · "
            << "<a href=\"#groups\">same file_type, different policy</a> · <a href=\"#scatter\">size against bits</a></p>\n"
            << "<noscript><p>The policy maps are drawn by the page's script; enable JavaScript to see them.</p></noscript>\n";
        write_quant_table(out, data.models);
        legend();  // sticky at the foot of the window while the maps scroll by
        groups();
        scatters();
        model_sections();
        other_kinds();
        out << "<script>" << kHtmlReportScript << "</script>\n</body></html>\n";
    }
};

// HSL (degrees, 0-1, 0-1) to #rrggbb.
std::string hsl_hex(double h, double s, double l) {
    auto f = [&](double n) {
        double k = std::fmod(n + h / 30.0, 12.0);
        double a = s * std::min(l, 1 - l);
        return static_cast<int>(std::lround(255 * (l - a * std::max(-1.0, std::min({k - 3, 9 - k, 1.0})))));
    };
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", f(0), f(8), f(4));
    return buf;
}

}  // namespace

std::string type_colour(const std::vector<catalog::ReportType>& ggml_types, const std::string& type) {
    // Hue and lightness by log2(bits per weight): violet (1) to green (4.5), orange (6.5),
    // red (8.5), pink (16), brown (32 and more); the common quants land on distinct hues.
    struct Stop { double log2_bpw, hue, saturation, lightness; };
    static constexpr Stop kStops[] = {{0.0, 285, 0.55, 0.35}, {1.0, 255, 0.65, 0.45}, {1.6, 205, 0.70, 0.45},
                                      {2.17, 135, 0.55, 0.40}, {2.46, 75, 0.65, 0.45}, {2.71, 42, 0.90, 0.55},
                                      {3.09, 10, 0.80, 0.50}, {4.0, 325, 0.60, 0.60}, {5.0, 25, 0.35, 0.40},
                                      {6.0, 25, 0.15, 0.30}};
    auto it = std::find_if(ggml_types.begin(), ggml_types.end(), [&](const auto& g) { return g.name == type; });
    if (it == ggml_types.end() || it->bits_per_weight <= 0) return "#9a9a9a";
    double x = std::clamp(std::log2(it->bits_per_weight), 0.0, 6.0);
    size_t i = 0;
    while (i + 2 < std::size(kStops) && x > kStops[i + 1].log2_bpw) ++i;
    const Stop &a = kStops[i], &b = kStops[i + 1];
    double f = std::clamp((x - a.log2_bpw) / (b.log2_bpw - a.log2_bpw), 0.0, 1.0);
    double hue = a.hue + f * (b.hue - a.hue > 180 ? b.hue - a.hue - 360 : b.hue - a.hue);
    // types with the same rate (Q4_0, Q4_K, IQ4_NL) step in lightness by their order in the table
    auto same = std::count_if(ggml_types.begin(), it, [&](const auto& g) { return g.bits_per_weight == it->bits_per_weight; });
    double lightness = a.lightness + f * (b.lightness - a.lightness) + 0.08 * static_cast<double>(same);
    return hsl_hex(std::fmod(hue + 360, 360), a.saturation + f * (b.saturation - a.saturation), std::min(lightness, 0.8));
}

void write_html_report(std::ostream& out, const catalog::ReportData& data, const std::string& title,
                       const std::string& catalogue) {
    Writer{out, data}.page(title, catalogue);
}

}  // namespace modelcat::report
