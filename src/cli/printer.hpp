#pragma once
// Prints query results as an aligned table, CSV, JSON or Markdown.
#include <ostream>
#include <string>

#include "catalog/query.hpp"

namespace modelcat::cli {

enum class OutputFormat { table, csv, json, markdown };

OutputFormat parse_output_format(const std::string& s);  // throws on an unknown name
void print_result(std::ostream& out, const catalog::QueryResult& r, OutputFormat f);

}  // namespace modelcat::cli
