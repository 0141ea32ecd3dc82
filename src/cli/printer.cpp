#include "cli/printer.hpp"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "cli/terminal.hpp"
#include "format/json_text.hpp"
#include "model/limits.hpp"
#include "report/html_text.hpp"

namespace modelcat::cli {

namespace {

// The raw value as text: integers as stored, reals to 4 decimals (bits per weight 4.8944).
std::string raw_text(const catalog::Cell& c) { return human_cell(c, ColumnKind::raw); }

bool is_number(const catalog::Cell& c) {
    return std::holds_alternative<int64_t>(c) || std::holds_alternative<double>(c);
}

// A CSV cell. A text cell is shown as on a terminal, after a ' when it starts with = + - @ TAB or CR
// (OWASP's rule: a spreadsheet would run =cmd|' /C calc'!A0); numbers stay as stored, -1 too. `raw`
// (csv-raw, for programs): the exact text.
std::string csv_field(const catalog::Cell& c, bool raw) {
    std::string s = std::holds_alternative<double>(c) ? format::json_number(std::get<double>(c)) : raw_text(c);
    if (!raw && std::holds_alternative<std::string>(c)) s = (s.find_first_of("=+-@\t\r") == 0 ? "'" : "") + terminal_safe(s);
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

// A markdown cell: escaped as HTML (a viewer renders <img src=x onerror=...>), a link's "](" as
// "&#93;(" ([x](javascript:...) is text then), '|' escaped and a newline a space (one row, one cell).
std::string markdown_cell(std::string_view s) {
    const std::string html = report::html_escape(s);
    std::string out;
    for (size_t i = 0; i < html.size(); ++i) {
        if (html[i] == '|') out += "\\|";
        else if (html[i] == '\n') out += ' ';
        else if (html[i] == ']' && i + 1 < html.size() && html[i + 1] == '(') out += "&#93;";
        else out += html[i];
    }
    return out;
}

void print_table(std::ostream& out, const catalog::QueryResult& r, bool markdown) {
    auto shown = [&](const std::string& s) { return markdown ? markdown_cell(terminal_safe(s)) : terminal_safe(s); };
    std::vector<std::string> header;
    for (const auto& name : r.columns) header.push_back(shown(name));
    std::vector<size_t> w(header.size());
    std::vector<bool> numeric(header.size(), true);
    for (size_t c = 0; c < header.size(); ++c) w[c] = header[c].size();
    std::vector<std::vector<std::string>> cells;
    for (const auto& row : r.rows) {
        cells.emplace_back();
        for (size_t c = 0; c < row.size(); ++c) {
            std::string s = shown(raw_text(row[c]));
            w[c] = std::max(w[c], s.size());
            if (!is_number(row[c]) && !std::holds_alternative<std::monostate>(row[c])) numeric[c] = false;
            cells.back().push_back(std::move(s));
        }
    }
    auto line = [&](const std::vector<std::string>& v) {
        if (markdown) out << "| ";
        for (size_t c = 0; c < v.size(); ++c) {
            if (c) out << (markdown ? " | " : "  ");
            size_t pad = w[c] - v[c].size();
            if (numeric[c]) out << std::string(pad, ' ') << v[c];
            else out << v[c] << (c + 1 < v.size() || markdown ? std::string(pad, ' ') : "");
        }
        out << (markdown ? " |\n" : "\n");
    };
    line(header);
    if (markdown) {
        out << "|";
        for (size_t c = 0; c < w.size(); ++c) out << (numeric[c] ? std::string(w[c] + 1, '-') + ":|" : std::string(w[c] + 2, '-') + "|");
        out << "\n";
    } else {
        std::vector<std::string> rule;
        for (size_t c = 0; c < w.size(); ++c) rule.push_back(std::string(w[c], '-'));
        line(rule);
    }
    for (const auto& row : cells) line(row);
}

// The indexes of `wanted` among `names` (all of them when none is wanted).
std::vector<size_t> pick_columns(const std::vector<std::string>& names, const std::vector<std::string>& wanted) {
    std::vector<size_t> out;
    for (const auto& w : wanted) {
        auto it = std::find(names.begin(), names.end(), w);
        if (it != names.end()) {
            out.push_back(size_t(it - names.begin()));
            continue;
        }
        std::string all;
        for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
        throw std::invalid_argument("no column '" + w + "' in this result (its columns: " + all + ")");
    }
    if (wanted.empty())
        for (size_t c = 0; c < names.size(); ++c) out.push_back(c);
    return out;
}

}  // namespace

OutputFormat default_output_format() { return ::isatty(STDOUT_FILENO) ? OutputFormat::table : OutputFormat::plain; }

OutputFormat parse_output_format(const std::string& s) {
    if (s.empty()) return default_output_format();
    if (s == "table") return OutputFormat::table;
    if (s == "plain") return OutputFormat::plain;
    if (s == "csv") return OutputFormat::csv;
    if (s == "csv-raw") return OutputFormat::csv_raw;
    if (s == "json") return OutputFormat::json;
    if (s == "markdown" || s == "md") return OutputFormat::markdown;
    throw std::invalid_argument("unknown format '" + s + "' (table, plain, csv, csv-raw, json, markdown)");
}

void print_result(std::ostream& out, const catalog::QueryResult& r, OutputFormat f, const TableShape& shape) {
    ResultPrinter p(out, f, shape);
    p.columns(r.columns);
    for (const auto& row : r.rows) p.row(row);
    p.finish();
}

void ResultPrinter::columns(const std::vector<std::string>& names) {
    const bool own_set = format_ == OutputFormat::table && !shape_.wide;
    std::vector<std::string> own;
    if (own_set)
        for (const auto& c : shape_.preferred) own.push_back(c.name);
    kept_ = pick_columns(names, !shape_.picked.empty() ? shape_.picked : own);
    if (!shape_.picked.empty() || !own_set) shape_.preferred.clear();  // its labels head its own set only
    held_.columns.clear();
    for (size_t c : kept_) held_.columns.push_back(names[c]);
    if (format_ == OutputFormat::csv || format_ == OutputFormat::csv_raw) csv_row({held_.columns.begin(), held_.columns.end()});
}

void ResultPrinter::row(std::vector<catalog::Cell> all) {
    if (limit_ && rows_ == limit_) {
        cut_ = true;
        return;
    }
    std::vector<catalog::Cell> cells;
    cells.reserve(kept_.size());
    for (size_t c : kept_) cells.push_back(std::move(all[c]));
    switch (format_) {
        case OutputFormat::table:
        case OutputFormat::plain:
        case OutputFormat::markdown:
            held_bytes_ += sizeof cells;  // what holding the row costs, not only its text
            for (const auto& c : cells) held_bytes_ += sizeof c + raw_text(c).size();
            if (held_bytes_ > model::Limits::max_table_bytes)
                throw std::runtime_error("the result passes " + std::to_string(model::Limits::max_table_bytes >> 20) +
                                         " MiB as an aligned table: use -f csv or -f json, which stream it");
            held_.rows.push_back(std::move(cells));
            break;
        case OutputFormat::csv:
        case OutputFormat::csv_raw: csv_row(cells); break;
        case OutputFormat::json: {
            std::string s = rows_ ? ",\n {" : "[\n {";
            for (size_t c = 0; c < held_.columns.size(); ++c) {
                if (c) s += ", ";
                format::append_json_string(s, held_.columns[c]);
                s += ": ";
                const auto& cell = cells[c];
                if (std::holds_alternative<std::monostate>(cell)) s += "null";
                else if (auto* v = std::get_if<int64_t>(&cell)) s += std::to_string(*v);
                else if (auto* d = std::get_if<double>(&cell)) s += format::json_number(*d);
                else format::append_json_string(s, std::get<std::string>(cell));
            }
            out_ << json_terminal_safe(s + "}");
            break;
        }
    }
    ++rows_;
}

void ResultPrinter::csv_row(const std::vector<catalog::Cell>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) out_ << (c ? "," : "") << csv_field(cells[c], format_ == OutputFormat::csv_raw);
    out_ << "\n";
}

void ResultPrinter::finish() {
    if (format_ == OutputFormat::table) print_human_table(out_, held_, shape_);
    else if (format_ == OutputFormat::plain || format_ == OutputFormat::markdown) print_table(out_, held_, format_ == OutputFormat::markdown);
    else if (format_ == OutputFormat::json) out_ << (rows_ ? "\n]\n" : "[]\n");
}

}  // namespace modelcat::cli
