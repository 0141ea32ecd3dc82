#include "catalog/crawl_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

namespace modelcat::catalog {

namespace {

constexpr size_t kMaxHolderText = 200;  // "pid N, started DATE": what a holder writes, and all that is read back

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buf;
}

}  // namespace

CrawlLock::CrawlLock(const std::string& db_path) : path_(db_path + ".lock") {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open the crawl lock " + path_ + ": " + std::strerror(errno));
}

CrawlLock::~CrawlLock() { ::close(fd_); }  // releases the lock

bool CrawlLock::try_acquire() {
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) return false;
        throw std::runtime_error("cannot lock " + path_ + ": " + std::strerror(errno));
    }
    record_holder();
    return true;
}

void CrawlLock::acquire() {
    while (::flock(fd_, LOCK_EX) != 0)
        if (errno != EINTR) throw std::runtime_error("cannot lock " + path_ + ": " + std::strerror(errno));
    record_holder();
}

void CrawlLock::record_holder() {
    const std::string text = "pid " + std::to_string(::getpid()) + ", started " + utc_now() + "\n";
    if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, text.data(), text.size(), 0);  // a courtesy: the lock holds without it
}

std::string CrawlLock::holder() const {
    char buf[kMaxHolderText];
    ssize_t n = ::pread(fd_, buf, sizeof buf, 0);
    std::string text(buf, n > 0 ? static_cast<size_t>(n) : 0);
    text = text.substr(0, text.find('\n'));
    return text.empty() ? "a crawl" : text;
}

}  // namespace modelcat::catalog
