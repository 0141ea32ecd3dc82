#pragma once
// Local files read by a small pool of threads (pread), so a crawl keeps
// several reads in flight; the same threads run offloaded work, and
// completions are handed back to run()'s thread. With no threads, reads and
// work run inline, in submit() and offload(): a synchronous reader
// (io::SyncFile) needs no pool.
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "io/range_reader.hpp"

namespace modelcat::io {

class LocalReader final : public RangeReader {
public:
    // A file is opened so that it cannot block: checked before opening, opened with O_NONBLOCK,
    // checked again with fstat; anything but a regular file fails the read.
    explicit LocalReader(unsigned threads, uint64_t max_whole_file = kMaxWholeFileBytes);
    ~LocalReader() override;
    LocalReader(const LocalReader&) = delete;
    LocalReader& operator=(const LocalReader&) = delete;

    void submit(RangeRequest request, std::function<void(RangeReply)> on_done) override;
    void offload(std::function<void()> work, std::function<void()> then) override;
    // Rethrows, on this thread, whatever a piece of work threw.
    void run() override;

private:
    struct Task {
        std::function<void()> work, then;
        std::exception_ptr error;
    };
    void work();
    RangeReply read(const RangeRequest& request) const;

    uint64_t max_whole_file_;
    std::mutex mu_;
    std::condition_variable has_work_, has_done_;
    std::deque<Task> todo_, done_;
    size_t pending_ = 0;  // submitted and not yet handed back
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace modelcat::io
