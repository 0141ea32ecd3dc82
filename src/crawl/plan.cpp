#include "crawl/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "io/byte_source.hpp"

namespace fs = std::filesystem;

namespace modelcat::crawl {

namespace {

constexpr uint64_t kMaxJsonBytes = 64ull << 20;  // index.json and config.json are small; refuse absurd ones

bool ends_with(const std::string& s, std::string_view suffix) { return s.ends_with(suffix); }

std::string parent(const std::string& location) { return location.substr(0, location.rfind('/')); }
std::string base_name(const std::string& location) { return location.substr(location.rfind('/') + 1); }

ModelPlan checkpoint_plan(const std::string& index_location, const Locator& locator) {
    ModelPlan m;
    m.kind = ModelPlan::Kind::checkpoint;
    m.name = hub_repo_or(index_location, base_name(parent(index_location)));
    m.index = index_location;
    std::string text = locator.read_text(index_location);
    m.parsed_index = format::parse_checkpoint_index({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
    for (const auto& shard : m.parsed_index->shards) m.data_files.push_back(sibling(index_location, shard));
    if (std::string config = sibling(index_location, "config.json"); locator.exists(config)) m.config = config;
    return m;
}

}  // namespace

std::optional<SplitName> parse_split_name(const std::string& location) {
    // name-00001-of-00003.gguf
    constexpr std::string_view kExt = ".gguf";
    if (!location.ends_with(kExt) || location.size() < kExt.size() + 16) return std::nullopt;
    std::string_view core(location.data(), location.size() - kExt.size());
    std::string_view tail = core.substr(core.size() - 15);  // -00001-of-00003
    unsigned n = 0, c = 0;
    char dash1, dash2;
    int used = 0;
    if (std::sscanf(std::string(tail).c_str(), "%c%5u-of%c%5u%n", &dash1, &n, &dash2, &c, &used) != 4 || used != 15 ||
        dash1 != '-' || dash2 != '-' || n == 0 || c == 0 || n > c)
        return std::nullopt;
    for (size_t i : {1, 2, 3, 4, 5, 10, 11, 12, 13, 14})
        if (tail[i] < '0' || tail[i] > '9') return std::nullopt;
    return SplitName{std::string(core.substr(0, core.size() - 15)), n, c};
}

std::string split_shard_name(const std::string& prefix, unsigned number, unsigned count) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "-%05u-of-%05u.gguf", number, count);
    return prefix + buf;
}

bool LocalLocator::exists(const std::string& location) const {
    std::error_code ec;
    return fs::exists(location, ec);
}

std::string LocalLocator::read_text(const std::string& location) const {
    io::LocalFile f(location);
    if (f.size() > kMaxJsonBytes)
        throw io::IoError(location + ": " + std::to_string(f.size()) + " bytes is more than the cap of " +
                          std::to_string(kMaxJsonBytes) + " for a JSON file");
    io::ByteBuffer bytes;
    f.read(0, f.size(), bytes);
    return std::string(bytes.begin(), bytes.end());
}

std::string sibling(const std::string& location, const std::string& name) { return parent(location) + "/" + name; }

std::string hub_repo_or(const std::string& location, const std::string& fallback) {
    // https://host/owner/repo/resolve/<rev>/file
    size_t r = location.find("/resolve/");
    size_t scheme = location.find("://");
    if (r == std::string::npos || scheme == std::string::npos) return fallback;
    size_t host_end = location.find('/', scheme + 3);
    if (host_end == std::string::npos || host_end >= r) return fallback;
    std::string repo = location.substr(host_end + 1, r - host_end - 1);
    return std::count(repo.begin(), repo.end(), '/') == 1 ? repo : fallback;
}

CrawlPlan plan_crawl(const std::vector<std::string>& files, std::vector<InputProblem> problems, const Locator& locator) {
    CrawlPlan plan;
    plan.problems = std::move(problems);
    std::set<std::string> claimed;
    auto add = [&](ModelPlan m) {
        for (const auto& f : m.data_files) claimed.insert(f);
        plan.models.push_back(std::move(m));
    };

    // Checkpoints first: an index claims its shards; a shard given alone brings in its index.
    std::set<std::string> indexes;
    for (const auto& f : files) {
        if (ends_with(f, ".safetensors.index.json")) indexes.insert(f);
        else if (ends_with(f, ".safetensors") && locator.exists(sibling(f, "model.safetensors.index.json")))
            indexes.insert(sibling(f, "model.safetensors.index.json"));
    }
    for (const auto& idx : indexes) {
        try {
            add(checkpoint_plan(idx, locator));
        } catch (const std::exception& e) {
            plan.problems.push_back({idx, e.what()});
        }
    }
    std::set<std::string> splits_seen;
    for (const auto& f : files) {
        if (claimed.count(f) || ends_with(f, ".safetensors.index.json")) continue;
        if (auto split = parse_split_name(f)) {
            std::string key = split->prefix + "/" + std::to_string(split->count);
            if (!splits_seen.insert(key).second) continue;
            ModelPlan m;
            m.kind = ModelPlan::Kind::split_gguf;
            m.name = hub_repo_or(f, base_name(split->prefix));
            for (unsigned i = 1; i <= split->count; ++i) m.data_files.push_back(split_shard_name(split->prefix, i, split->count));
            add(std::move(m));
            continue;
        }
        ModelPlan m;
        m.name = hub_repo_or(f, model_name_for(f));
        m.data_files = {f};
        // a lone model.safetensors with config.json beside it is a checkpoint too
        if (base_name(f) == "model.safetensors") {
            m.name = hub_repo_or(f, base_name(parent(f)));
            if (std::string config = sibling(f, "config.json"); locator.exists(config)) {
                m.kind = ModelPlan::Kind::checkpoint;
                m.config = config;
            }
        }
        add(std::move(m));
    }
    return plan;
}

}  // namespace modelcat::crawl
