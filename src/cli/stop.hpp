#pragma once
// Stopping a long crawl cleanly: SIGINT/SIGTERM (the first one: a second one
// ends the process at once) and --deadline both ask the crawl to start no more
// models; those in flight finish and the crawl is recorded as interrupted. And a
// reading command's --query-timeout, past which a statement is stopped.
#include <CLI/CLI.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace modelcat::cli {

void install_stop_handlers();
int stop_signal();  // SIGINT or SIGTERM once received, else 0

// "90", "90s", "45m", "8h", "1h30m", "7d", "2w": seconds; nullopt when malformed.
std::optional<double> parse_duration(const std::string& text);

// Adds --query-timeout DURATION to a command that reads the catalogue: each statement may spend that
// much CPU time (default catalog::kDefaultStatementTime) before it is stopped; a bad duration is a usage error.
void add_query_timeout(CLI::App* cmd, std::chrono::milliseconds& statement_time);

}  // namespace modelcat::cli
