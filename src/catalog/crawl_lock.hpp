#pragma once
// One crawl writes a catalogue at a time: an advisory lock (flock) on "PATH.lock",
// held for the whole crawl and released by the kernel however the process ends.
// Its holder writes its pid and start time there, for the one that waits. Readers
// take no lock: SQLite's WAL lets them read while a crawl writes.
#include <string>

namespace modelcat::catalog {

class CrawlLock {
public:
    explicit CrawlLock(const std::string& db_path);  // opens (creates) the lock file; throws when it cannot
    ~CrawlLock();
    CrawlLock(const CrawlLock&) = delete;
    CrawlLock& operator=(const CrawlLock&) = delete;

    bool try_acquire();  // at once, or false while another crawl holds it
    void acquire();      // waits for the other crawl to end
    // "pid 4242, started 2026-12-01 23:50:01 UTC", as the holder wrote it ("a crawl" before it has).
    std::string holder() const;
    const std::string& path() const { return path_; }

private:
    void record_holder();
    std::string path_;
    int fd_ = -1;
};

}  // namespace modelcat::catalog
