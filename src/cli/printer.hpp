#pragma once
// Prints query results as an aligned table, CSV, JSON or Markdown.
#include <ostream>
#include <string>

#include "catalog/query.hpp"

namespace modelcat::cli {

enum class OutputFormat { table, csv, json, markdown };

OutputFormat parse_output_format(const std::string& s);  // throws on an unknown name
void print_result(std::ostream& out, const catalog::QueryResult& r, OutputFormat f);

// Prints rows as they come: csv and json stream (memory independent of the rows); a table or
// markdown aligns its columns, so it holds the text, and past model::Limits::max_table_bytes
// throws, naming the formats that stream. finish() ends the output.
class ResultPrinter final : public catalog::RowSink {
public:
    ResultPrinter(std::ostream& out, OutputFormat f) : out_(out), format_(f) {}
    void columns(const std::vector<std::string>& names) override;
    void row(std::vector<catalog::Cell> cells) override;
    void finish();

private:
    std::ostream& out_;
    OutputFormat format_;
    catalog::QueryResult held_;  // table and markdown: the rows until finish()
    uint64_t held_bytes_ = 0;
    size_t rows_ = 0;
};

}  // namespace modelcat::cli
