#include "cli/human_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>

#include "cli/terminal.hpp"
#include "model/location_text.hpp"
#include "model/census.hpp"
#include "model/quantity_text.hpp"
#include "model/utf8.hpp"

namespace modelcat::cli {

namespace {

constexpr size_t kMinTextWidth = 12;                    // a text column is not elided below this (or its header)

std::vector<std::string_view> words(std::string_view name) {
    std::vector<std::string_view> out;
    for (size_t start = 0;;) {
        size_t end = name.find('_', start);
        out.push_back(name.substr(start, end - start));
        if (end == std::string_view::npos) return out;
        start = end + 1;
    }
}

// with_commas (terminal.hpp) with a sign: -1,234.
std::string grouped(int64_t v) { return v < 0 ? "-" + with_commas(-(v + 1) + uint64_t{1}) : with_commas(uint64_t(v)); }

std::string real(double d) {
    char buf[64];
    if (d != 0 && std::fabs(d) < 0.01) {
        std::snprintf(buf, sizeof buf, "%.4g", d);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "%.4f", d);
    std::string s = buf;
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
}

// A location column less the folder all its rows share, which the returned note names ("" when
// none); beside a name column, which names the file, only each file's folder ("./": that one).
std::string shorten_locations(std::vector<std::vector<std::string>>& cells, size_t column, bool named) {
    std::vector<std::string> locations;
    for (auto& row : cells) {
        std::string& s = row[column];
        if (named && s.find('/') != std::string::npos) s.resize(s.rfind('/') + 1);
        locations.push_back(s);
    }
    const std::string folder = model::shared_folder(locations);
    if (folder.empty()) return named ? "the folder of each file" : "";
    for (auto& row : cells)
        if (!row[column].empty()) row[column] = row[column].size() > folder.size() ? row[column].substr(folder.size()) : "./";
    return std::string(named ? "the folder of each file, " : "") + "under " + folder;
}

size_t total_width(const std::vector<size_t>& w, size_t n) {
    return n ? std::accumulate(w.begin(), w.begin() + n, size_t{0}) + 2 * (n - 1) : 0;
}

// Narrows the first n columns' widths `w` to fit `limit`, none below `floor`, the widest first
// as `weigh` sees it; false when even the floors do not fit.
template <typename Weigh>
bool shrink_to_fit(std::vector<size_t>& w, const std::vector<size_t>& floor, size_t n, size_t limit, Weigh weigh) {
    while (total_width(w, n) > limit) {
        size_t widest = n;
        for (size_t c = 0; c < n; ++c)
            if (w[c] > floor[c] && (widest == n || weigh(c, w[c]) > weigh(widest, w[widest]))) widest = c;
        if (widest == n) return false;
        --w[widest];
    }
    return true;
}

}  // namespace

ColumnKind column_kind(std::string_view name) {
    const auto w = words(name);
    if (name == "location") return ColumnKind::location;
    if (w.front() == "census") return ColumnKind::census;
    if (std::find(w.begin(), w.end(), "bytes") != w.end()) return ColumnKind::bytes;
    if (w.back() == "params") return ColumnKind::params;
    if (w.back() == "id") return ColumnKind::raw;
    return ColumnKind::count;  // applies to integers only; text stays text
}

std::string human_cell(const catalog::Cell& c, ColumnKind kind) {
    if (std::holds_alternative<std::monostate>(c)) return "";
    if (auto* s = std::get_if<std::string>(&c)) return kind == ColumnKind::census ? model::census_with_names(*s) : *s;
    const auto* i = std::get_if<int64_t>(&c);
    const double v = i ? double(*i) : std::get<double>(c);
    switch (kind) {
        case ColumnKind::bytes: return model::size_text(v);
        case ColumnKind::params: return model::params_text(v);
        case ColumnKind::raw: return i ? std::to_string(*i) : real(v);
        default: return i ? grouped(*i) : real(v);
    }
}

size_t terminal_width() {
    const char* env = std::getenv("COLUMNS");
    char* end = nullptr;
    long n = env ? std::strtol(env, &end, 10) : 0;
    return env && *env && end && *end == '\0' && n >= 20 && n <= 10000 ? size_t(n) : 120;
}

void print_human_table(std::ostream& out, const catalog::QueryResult& r, const TableShape& shape) {
    const size_t n = r.columns.size();
    std::vector<std::string> header;
    std::vector<ColumnKind> kinds;
    for (const auto& name : r.columns) {
        auto own = std::find_if(shape.preferred.begin(), shape.preferred.end(), [&](const auto& c) { return c.name == name; });
        header.push_back(terminal_safe(own != shape.preferred.end() ? own->label : name));
        kinds.push_back(column_kind(name));
    }
    std::vector<std::vector<std::string>> cells;
    std::vector<bool> right(n, true);
    for (const auto& row : r.rows) {
        auto& line = cells.emplace_back();
        for (size_t c = 0; c < n; ++c) {
            line.push_back(terminal_safe(human_cell(row[c], kinds[c])));
            if (std::holds_alternative<std::string>(row[c])) right[c] = false;
        }
    }
    std::vector<std::string> notes;
    const bool named = std::find(r.columns.begin(), r.columns.end(), "name") != r.columns.end();
    for (size_t c = 0; c < n; ++c) {
        std::string note = kinds[c] == ColumnKind::location && !cells.empty() ? shorten_locations(cells, c, named) : "";
        if (!note.empty()) notes.push_back(header[c] + ": " + note);
    }
    std::vector<size_t> w(n), floor(n);
    for (size_t c = 0; c < n; ++c) {
        w[c] = model::utf8_length(header[c]);
        for (const auto& line : cells) w[c] = std::max(w[c], model::utf8_length(line[c]));
        floor[c] = right[c] ? w[c] : std::max(model::utf8_length(header[c]), std::min(w[c], kMinTextWidth));
    }
    size_t shown = n;
    if (!shape.wide) {
        std::vector<size_t> full = w;
        // the first column names the row: it gives up width more slowly; a location (beside the name) faster
        auto weigh = [&](size_t c, size_t width) { return c == 0 ? width * 2 / 3 : kinds[c] == ColumnKind::location ? width * 2 : width; };
        while (shown > 1 && !shrink_to_fit(w = full, floor, shown, shape.width, weigh)) --shown;
        if (shown == 1) shrink_to_fit(w, std::vector<size_t>(n, 1), 1, shape.width, weigh);
    }
    auto print_line = [&](const std::vector<std::string>& v) {
        std::string line;
        for (size_t c = 0; c < shown; ++c) {
            std::string s = kinds[c] == ColumnKind::census ? model::elide_end(v[c], w[c]) : model::elide_middle(v[c], w[c]);
            std::string pad(w[c] - model::utf8_length(s), ' ');
            line += (c ? "  " : "") + (right[c] ? pad + s : s + (c + 1 < shown ? pad : ""));
        }
        out << line << "\n";
    };
    print_line(header);
    std::vector<std::string> rule;
    for (size_t c = 0; c < n; ++c) rule.push_back(std::string(w[c], '-'));
    print_line(rule);
    for (const auto& line : cells) print_line(line);
    if (shown < n) {
        std::string left_off;
        for (size_t c = shown; c < n; ++c) left_off += (c > shown ? ", " : "") + header[c];
        notes.push_back("not shown (too wide): " + left_off + "; --wide or --columns shows them");
    }
    for (const auto& note : notes) out << (shape.wide ? note : model::elide_middle(note, shape.width)) << "\n";
}

}  // namespace modelcat::cli
