#include "cli/stop.hpp"

#include <csignal>
#include <cstdlib>

#include "catalog/read_guard.hpp"

namespace modelcat::cli {

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) {
    g_signal = sig;
    std::signal(sig, SIG_DFL);  // a second one ends the process
}

}  // namespace

void install_stop_handlers() {
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
}

int stop_signal() { return g_signal; }

std::optional<double> parse_duration(const std::string& text) {
    double total = 0;
    size_t i = 0;
    while (i < text.size()) {
        char* end = nullptr;
        double v = std::strtod(text.c_str() + i, &end);
        size_t used = static_cast<size_t>(end - (text.c_str() + i));
        if (used == 0 || v < 0) return std::nullopt;
        i += used;
        double unit = 1;
        if (i < text.size()) {
            switch (text[i]) {
                case 's': unit = 1; break;
                case 'm': unit = 60; break;
                case 'h': unit = 3600; break;
                case 'd': unit = 86400; break;
                case 'w': unit = 7 * 86400; break;
                default: return std::nullopt;
            }
            ++i;
        } else if (total > 0) {
            return std::nullopt;  // "1h30": a unit is needed after the first part
        }
        total += v * unit;
    }
    return i == 0 ? std::nullopt : std::optional(total);
}

void add_query_timeout(CLI::App* cmd, std::chrono::milliseconds& statement_time) {
    statement_time = catalog::kDefaultStatementTime;
    const std::string help = "stop a statement that spends more CPU time than this (default " +
                             std::to_string(catalog::kDefaultStatementTime.count()) + "s): 90s, 5m, 1h";
    cmd->add_option_function<std::string>(
        "--query-timeout",
        [&statement_time](const std::string& text) {
            const std::optional<double> seconds = parse_duration(text);
            if (!seconds || *seconds <= 0) throw CLI::ValidationError("--query-timeout", "expected a duration such as 90s, 5m or 1h, got " + text);
            statement_time = std::chrono::milliseconds(static_cast<int64_t>(*seconds * 1000));
        },
        help);
}

}  // namespace modelcat::cli
