#include "io/local_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "io/io_error.hpp"
#include "io/local_file.hpp"

namespace modelcat::io {

LocalReader::LocalReader(unsigned threads, uint64_t max_whole_file) : max_whole_file_(max_whole_file) {
    for (unsigned i = 0; i < std::max(1u, threads); ++i) threads_.emplace_back([this] { work(); });
}

LocalReader::~LocalReader() {
    {
        std::lock_guard lock(mu_);
        stopping_ = true;
    }
    has_work_.notify_all();
    for (auto& t : threads_) t.join();
}

void LocalReader::submit(RangeRequest request, std::function<void(RangeReply)> on_done) {
    auto reply = std::make_shared<RangeReply>();
    offload([this, request = std::move(request), reply] { *reply = read(request); },
            [on_done = std::move(on_done), reply] { on_done(std::move(*reply)); });
}

void LocalReader::offload(std::function<void()> work, std::function<void()> then) {
    {
        std::lock_guard lock(mu_);
        todo_.push_back({std::move(work), std::move(then), nullptr});
        ++pending_;
    }
    has_work_.notify_one();
}

void LocalReader::run() {
    std::unique_lock lock(mu_);
    while (pending_ > 0) {
        has_done_.wait(lock, [&] { return !done_.empty(); });
        Task task = std::move(done_.front());
        done_.pop_front();
        --pending_;
        lock.unlock();
        if (task.error) std::rethrow_exception(task.error);
        task.then();  // may submit more
        lock.lock();
    }
}

void LocalReader::work() {
    std::unique_lock lock(mu_);
    for (;;) {
        has_work_.wait(lock, [&] { return stopping_ || !todo_.empty(); });
        if (stopping_) return;
        Task task = std::move(todo_.front());
        todo_.pop_front();
        lock.unlock();
        try {
            task.work();
        } catch (...) {
            task.error = std::current_exception();
        }
        lock.lock();
        done_.push_back(std::move(task));
        has_done_.notify_one();
    }
}

RangeReply LocalReader::read(const RangeRequest& req) const {
    RangeReply r;
    r.location = r.final_url = req.location;
    try {
        LocalFile f(req.location);
        r.stat = f.stat();
        r.total_size = f.size();
        uint64_t length = req.length;
        if (length == 0) {
            if (f.size() > max_whole_file_)
                throw IoError(req.location + ": " + std::to_string(f.size()) + " bytes is more than the cap of " +
                              std::to_string(max_whole_file_) + " for a JSON file");
            length = f.size();
        }
        f.read(req.offset, length, req.append_to ? *req.append_to : r.body);
        r.appended = req.append_to != nullptr;
        r.status = 206;
        r.requests = static_cast<uint32_t>(f.requests());
        r.bytes = f.bytes_read();
    } catch (const IoError& e) {
        r.error = e.what();
        std::error_code ec;
        if (!std::filesystem::exists(std::filesystem::symlink_status(req.location, ec))) r.status = 404;
    }
    return r;
}

}  // namespace modelcat::io
