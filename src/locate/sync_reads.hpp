#pragma once
// Files read one at a time, local or remote, the way `access` says (the token
// to the Hub endpoint only, budgets named): local files inline, remote ones on
// one HTTP reader, made on first use. The audit reads its inputs through it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/http_reader.hpp"
#include "io/local_reader.hpp"
#include "io/sync_file.hpp"
#include "locate/access.hpp"
#include "locate/locator.hpp"

namespace modelcat::locate {

class SyncReads {
public:
    // `known`: the budgets servers announced before (earlier runs, or an earlier reader).
    explicit SyncReads(HttpAccess access, std::vector<io::BudgetState> known = {})
        : access_(std::move(access)), known_(std::move(known)) {}
    // The file at `location` (a path or an http(s):// URL).
    io::SyncFile open(const std::string& location);
    // A file again, from where an earlier read left it: its route, size and first bytes.
    io::SyncFile reopen(const io::ReadRoute& route, uint64_t size, std::vector<uint8_t> first_bytes);
    // What the servers announced of their budgets so far.
    std::vector<io::BudgetState> budgets() const { return http_ ? http_->budgets() : known_; }

private:
    io::RangeReader& reader_for(const std::string& location);
    HttpAccess access_;
    std::vector<io::BudgetState> known_;
    io::LocalReader local_{0};
    std::unique_ptr<io::HttpReader> http_;
};

// Planning's reads through SyncReads, counted: a path exists when the disk says so; a URL is
// taken to exist (a read of it says otherwise).
class SyncLocator final : public Locator {
public:
    explicit SyncLocator(SyncReads& reads) : reads_(reads) {}
    bool exists(const std::string& location) const override;
    std::string read_text(const std::string& location) const override;
    uint64_t bytes_read() const { return bytes_read_; }
    uint64_t requests() const { return requests_; }

private:
    SyncReads& reads_;
    mutable uint64_t bytes_read_ = 0, requests_ = 0;
};

}  // namespace modelcat::locate
