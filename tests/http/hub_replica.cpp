#include "hub_replica.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace modelcat::test {

HubReplica::HubReplica(const std::filesystem::path& dir, ReplicaOptions o) : root_(dir / "repos"), log_(dir / "replica.log") {
    std::filesystem::create_directories(root_);
    const std::filesystem::path ports = dir / "replica.ports";
    std::vector<std::string> argv = {"python3", MODELCAT_HUB_REPLICA, "--root", root_.string(), "--log", log_.string(),
                                     "--ports-file", ports.string(), "--api-quota", std::to_string(o.api_quota),
                                     "--resolver-quota", std::to_string(o.resolver_quota), "--window",
                                     std::to_string(o.window_s), "--first-url-reads", std::to_string(o.first_url_reads),
                                     "--models-page-max", std::to_string(o.models_page_max)};
    if (o.models_oldest_first) argv.push_back("--models-oldest-first");
    if (!o.expired_first_url.empty()) argv.insert(argv.end(), {"--expired-first-url", o.expired_first_url});
    pid_ = fork();
    if (pid_ == 0) {
        std::vector<char*> args;
        for (auto& a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    for (int i = 0; i < 200 && !std::filesystem::exists(ports); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    std::ifstream in(ports);
    if (!(in >> hub_port_)) throw std::runtime_error("the Hub replica did not start (no " + ports.string() + ")");
}

HubReplica::~HubReplica() {
    if (pid_ > 0) {
        kill(pid_, SIGTERM);
        waitpid(pid_, nullptr, 0);
    }
}

std::string HubReplica::endpoint() const { return "http://127.0.0.1:" + std::to_string(hub_port_); }

std::vector<ReplicaRequest> HubReplica::log() const {
    std::vector<ReplicaRequest> out;
    std::ifstream in(log_);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        ReplicaRequest r;
        std::string time, status, bytes;
        std::getline(f, r.host, '\t');
        std::getline(f, time, '\t');
        std::getline(f, r.method, '\t');
        std::getline(f, r.target, '\t');
        std::getline(f, status, '\t');
        std::getline(f, bytes, '\t');
        std::getline(f, r.range, '\t');
        std::getline(f, r.authorization);
        r.time = std::stod(time);
        r.status = std::stoi(status);
        r.bytes = std::stoull(bytes);
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace modelcat::test
