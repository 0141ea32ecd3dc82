#pragma once
// Prints query results as a table for a person (cli/human_table), an aligned table of the raw
// values (plain), CSV, JSON or Markdown.
#include <ostream>
#include <string>

#include "catalog/query.hpp"
#include "cli/human_table.hpp"

namespace modelcat::cli {

enum class OutputFormat { table, plain, csv, csv_raw, json, markdown };

// "" is the default: table when stdout is a terminal, plain (the same raw values as csv) when it is not.
// csv is for spreadsheets (its text cells defused), csv-raw for programs (the exact text).
OutputFormat parse_output_format(const std::string& s);  // throws on an unknown name
OutputFormat default_output_format();
void print_result(std::ostream& out, const catalog::QueryResult& r, OutputFormat f, const TableShape& shape = {});

// Prints rows as they come: csv, csv-raw and json stream (memory independent of the rows); a table or
// markdown aligns its columns, so it holds the text, and past model::Limits::max_table_bytes
// throws, naming the formats that stream. finish() ends the output. `shape` picks the columns
// (--columns in every format; the report's own set in a table) and the table's width. With a
// `limit` (0: none) it prints that many rows and asks for no more once the next one shows that
// more follow (cut()).
class ResultPrinter final : public catalog::RowSink {
public:
    ResultPrinter(std::ostream& out, OutputFormat f, TableShape shape = {}, size_t limit = 0)
        : out_(out), format_(f), shape_(std::move(shape)), limit_(limit) {}
    void columns(const std::vector<std::string>& names) override;
    void row(std::vector<catalog::Cell> cells) override;
    bool wants_more() const override { return !cut_; }
    void finish();
    bool cut() const { return cut_; }  // rows beyond the limit were left unread

private:
    void csv_row(const std::vector<catalog::Cell>& cells);  // the header's names or a row, as csv or csv-raw
    std::ostream& out_;
    OutputFormat format_;
    TableShape shape_;
    std::vector<size_t> kept_;  // the result's columns printed, in order
    catalog::QueryResult held_;  // table and markdown: the rows until finish()
    uint64_t held_bytes_ = 0;
    size_t rows_ = 0;
    size_t limit_;
    bool cut_ = false;
};

}  // namespace modelcat::cli
