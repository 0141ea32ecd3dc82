#include "io/local_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "io/io_error.hpp"

namespace modelcat::io {

namespace {

// One local file, open for one read: what a read of it found (stat, bytes) or an IoError.
class OpenFile {
public:
    explicit OpenFile(const std::string& path) : path_(path) {
        // a missing file is left to open(), whose error says so
        if (auto why = not_a_regular_file(path_); why && *why != kNoSuchFile) throw IoError(path_ + ": " + *why);
        // O_NONBLOCK: a pipe or device swapped in after the check cannot hang the open
        fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd_ < 0) throw IoError(path_ + ": cannot open: " + std::strerror(errno));
        struct stat st {};
        if (::fstat(fd_, &st) != 0) {
            int e = errno;
            ::close(fd_);
            throw IoError(path_ + ": cannot stat: " + std::strerror(e));
        }
        if (!S_ISREG(st.st_mode)) {
            ::close(fd_);
            throw IoError(path_ + ": " + kind_reason(st.st_mode));
        }
        stat_ = to_file_stat(st);
    }
    // Readahead would fill the page cache with what follows the asked range (a header's tensor data).
    void no_read_ahead() { ::posix_fadvise(fd_, 0, 0, POSIX_FADV_RANDOM); }
    ~OpenFile() { ::close(fd_); }
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;

    const FileStat& stat() const { return stat_; }
    // Appends bytes [offset, offset + n) (clamped to the size) to `out`; returns how many.
    uint64_t read(uint64_t offset, uint64_t n, format::ByteBuffer& out) {
        if (offset >= stat_.size) return 0;
        n = std::min(n, stat_.size - offset);
        size_t base = out.size();
        out.resize(base + n);
        uint64_t done = 0;
        while (done < n) {
            ssize_t r = ::pread(fd_, out.data() + base + done, n - done, static_cast<off_t>(offset + done));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                out.resize(base + done);
                throw IoError(path_ + ": read failed at offset " + std::to_string(offset + done) + ": " +
                              (r == 0 ? "unexpected end of file" : std::strerror(errno)));
            }
            done += static_cast<uint64_t>(r);
        }
        return n;
    }

private:
    const std::string& path_;
    int fd_ = -1;
    FileStat stat_;
};

}  // namespace

LocalReader::LocalReader(unsigned threads, uint64_t max_whole_file) : max_whole_file_(max_whole_file) {
    for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
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
    Task task{std::move(work), std::move(then), nullptr};
    if (threads_.empty()) {  // inline: done now, handed out by run()
        try {
            task.work();
        } catch (...) {
            task.error = std::current_exception();
        }
        std::lock_guard lock(mu_);
        done_.push_back(std::move(task));
        ++pending_;
        return;
    }
    {
        std::lock_guard lock(mu_);
        todo_.push_back(std::move(task));
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
        OpenFile f(req.location);
        if (!req.read_ahead) f.no_read_ahead();
        r.stat = f.stat();
        r.total_size = f.stat().size;
        uint64_t length = req.length;
        if (length == 0) {
            if (f.stat().size > max_whole_file_)
                throw IoError(req.location + ": " + std::to_string(f.stat().size) + " bytes is more than the cap of " +
                              std::to_string(max_whole_file_) + " for a file read whole");
            length = f.stat().size;
        }
        r.bytes = f.read(req.offset, length, req.append_to ? *req.append_to : r.body);
        r.appended = req.append_to != nullptr;
        r.status = 206;
        r.requests = r.bytes > 0 ? 1 : 0;
    } catch (const IoError& e) {
        r.error = e.what();
        std::error_code ec;
        if (!std::filesystem::exists(std::filesystem::symlink_status(req.location, ec))) r.status = 404;
    }
    return r;
}

}  // namespace modelcat::io
