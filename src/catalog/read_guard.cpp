#include "catalog/read_guard.hpp"

#include "catalog/database.hpp"

#include <sqlite3.h>
#include <strings.h>
#include <time.h>

#include <string_view>

namespace modelcat::catalog {

namespace {

// Every 10,000 virtual-machine steps the deadline is looked at: a few microseconds apart, a clock read each.
constexpr int kStepsBetweenDeadlineChecks = 10'000;

// The two-argument fts3_tokenizer sets a tokenizer from an address (a jump anywhere); the
// one-argument form prints a libsqlite3 address. load_extension loads code.
bool runs_code(const char* function) {
    return function && (strcasecmp(function, "fts3_tokenizer") == 0 || strcasecmp(function, "load_extension") == 0);
}

// The pragmas that take an argument only to read (pragma_table_info('models') runs PRAGMA
// table_info(models)); any other given a value changes a setting (trusted_schema = 1).
bool reads_only(const char* pragma) {
    static constexpr std::string_view kReading[] = {"table_info",  "table_xinfo", "table_list",       "index_info",
                                                    "index_xinfo", "index_list",  "foreign_key_list", "foreign_key_check"};
    for (std::string_view p : kReading)
        if (strcasecmp(pragma, p.data()) == 0) return true;
    return false;
}

// The CPU time this thread has used: a statement runs on the thread that steps it.
std::chrono::nanoseconds thread_cpu_time() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

}  // namespace

ReadGuard::ReadGuard(SQLite::Database& db, std::chrono::milliseconds statement_time)
    : statement_time_(statement_time), statement_deadline_(thread_cpu_time() + statement_time) {
    sqlite3* h = db.getHandle();
    lock_down(db);  // opened so already (catalog/database.hpp): said again here, since this guard promises it
    sqlite3_limit(h, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_hard_heap_limit64(kReadingHeapLimitBytes);  // enforced while SQLite counts allocations (database.cpp)
    sqlite3_set_authorizer(h, authorize, this);
    sqlite3_trace_v2(h, SQLITE_TRACE_STMT, trace_statement, this);
    sqlite3_progress_handler(h, kStepsBetweenDeadlineChecks, past_deadline, this);
}

int ReadGuard::authorize(void* self, int action, const char* what, const char* detail, const char*, const char*) {
    std::string& refused = static_cast<ReadGuard*>(self)->refused_;
    switch (action) {
        case SQLITE_ATTACH: refused = "ATTACH"; return SQLITE_DENY;
        case SQLITE_DETACH: refused = "DETACH"; return SQLITE_DENY;
        case SQLITE_CREATE_VTABLE:
        case SQLITE_DROP_VTABLE: refused = "a virtual table"; return SQLITE_DENY;
        case SQLITE_FUNCTION:
            if (!runs_code(detail)) return SQLITE_OK;
            refused = std::string("the function ") + detail;
            return SQLITE_DENY;
        case SQLITE_PRAGMA:  // a setting changes as the statement is prepared, before sqlite3_stmt_readonly could refuse it
            if (!detail || reads_only(what)) return SQLITE_OK;
            refused = std::string("PRAGMA ") + what + " = " + detail + ", which changes a setting";
            return SQLITE_DENY;
        default: return SQLITE_OK;
    }
}

// A statement's deadline starts when it starts running (again, after a reset); a trigger's
// program (traced as "-- TRIGGER name", not as its statement's text) runs within its statement's.
int ReadGuard::trace_statement(unsigned, void* self, void* statement, void* text) {
    if (text != sqlite3_sql(static_cast<sqlite3_stmt*>(statement))) return 0;
    auto* guard = static_cast<ReadGuard*>(self);
    guard->statement_deadline_ = thread_cpu_time() + guard->statement_time_;
    return 0;
}

int ReadGuard::past_deadline(void* self) {
    return thread_cpu_time() > static_cast<ReadGuard*>(self)->statement_deadline_ ? 1 : 0;
}

}  // namespace modelcat::catalog
