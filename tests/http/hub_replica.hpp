#pragma once
// The Hub replica (hub_replica.py) as a test fixture: a Hub host (listings,
// /resolve/ redirects, fixed-window budgets announced and enforced) and a
// storage host (presigned range reads) on 127.0.0.1, started by the
// constructor and stopped by the destructor. Tests read its request log.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace modelcat::test {

struct ReplicaOptions {
    unsigned api_quota = 1000, resolver_quota = 5000;
    double window_s = 300;
    unsigned first_url_reads = 0;  // > 0: the first presigned URL of each file expires after this many reads
    std::string expired_first_url = {};  // non-empty: the first presigned URL of a file whose path holds it is expired when issued
    unsigned models_page_max = 1000;  // repositories on one models API page (the Hub: 1,000)
    bool models_oldest_first = false;  // the models API ignores direction=-1
};

// One request as the replica logged it.
struct ReplicaRequest {
    std::string host;  // "hub" or "storage"
    double time = 0;
    std::string method, target;
    int status = 0;
    uint64_t bytes = 0;
    std::string range, authorization;  // "-" when absent
};

class HubReplica {
public:
    explicit HubReplica(const std::filesystem::path& dir, ReplicaOptions options = {});
    ~HubReplica();
    HubReplica(const HubReplica&) = delete;
    HubReplica& operator=(const HubReplica&) = delete;

    const std::filesystem::path& root() const { return root_; }  // files are root()/OWNER/REPO/PATH
    std::string endpoint() const;                                  // http://127.0.0.1:<hub port>
    std::vector<ReplicaRequest> log() const;

private:
    std::filesystem::path root_, log_;
    unsigned hub_port_ = 0;
    pid_t pid_ = -1;
};

}  // namespace modelcat::test
