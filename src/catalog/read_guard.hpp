#pragma once
// What a reading connection lets a stranger's catalogue and .sql file do: read the
// catalogue, nothing else. No code reached through fts3_tokenizer, no other file
// (ATTACH, VACUUM INTO), no virtual table, no setting changed; every statement bounded
// in CPU time (a progress-handler deadline) and SQLite's heap (process-wide).
#include <SQLiteCpp/Database.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

namespace modelcat::catalog {

inline constexpr int64_t kReadingHeapLimitBytes = 512ll << 20;
inline constexpr std::chrono::seconds kDefaultStatementTime{60};

class ReadGuard {
public:
    // Guards `db` while this object lives; it must outlive the connection's last statement. A statement
    // may spend `statement_time` of its thread's CPU time (not wall time: a reader paused behind a pipe costs none).
    ReadGuard(SQLite::Database& db, std::chrono::milliseconds statement_time);
    ReadGuard(const ReadGuard&) = delete;
    ReadGuard& operator=(const ReadGuard&) = delete;

    // What the authorizer refused since this was last asked ("ATTACH", "the function fts3_tokenizer"), or "".
    std::string take_refusal() { return std::exchange(refused_, {}); }

private:
    static int authorize(void* self, int action, const char* what, const char* detail, const char*, const char*);
    static int trace_statement(unsigned, void* self, void* statement, void* text);
    static int past_deadline(void* self);

    std::chrono::milliseconds statement_time_;
    std::chrono::nanoseconds statement_deadline_;  // on the running thread's CPU clock
    std::string refused_;
};

}  // namespace modelcat::catalog
