#pragma once
// The table a person reads (`-f table`, the default on a terminal): type names in censuses,
// sizes in binary units, counts with thousands separators, parameter counts as "8.03 B",
// locations relative to the folder the rows share, long text elided in the middle, and as
// many columns as fit the terminal's width. csv, json, markdown and plain keep raw values.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/query.hpp"
#include "catalog/report_params.hpp"

namespace modelcat::cli {

// How a column's values read in the table; the one rule is column_kind (docs/reports.md).
enum class ColumnKind { text, location, census, bytes, params, raw, count };

// From the column's name: location; census, census_*; any `_`-separated word "bytes"
// (file_bytes, bytes_read); params, *_params; raw: id, *_id (digits as stored); anything else is text, or a
// count when its value is an integer.
ColumnKind column_kind(std::string_view name);

// One value as the table shows it ("" for NULL); not yet terminal-safe.
std::string human_cell(const catalog::Cell& c, ColumnKind kind);

// Which columns are printed, and how wide the table may be.
struct TableShape {
    std::vector<std::string> picked;     // --columns: these, in this order, in every format
    std::vector<catalog::TableColumn> preferred;  // the report's `-- @table` columns: the table's default
                                                  // unless --wide, their labels the table's headers
    size_t width = 120;                  // the terminal's columns
    bool wide = false;                   // every column, at full width
};

// $COLUMNS when it is a number from 20 to 10,000, else 120.
size_t terminal_width();

// Prints `r` (its columns already picked; headed by their labels in shape.preferred) for a person: at most shape.width wide unless
// shape.wide; columns that do not fit are left off from the right and named below the table.
void print_human_table(std::ostream& out, const catalog::QueryResult& r, const TableShape& shape);

}  // namespace modelcat::cli
