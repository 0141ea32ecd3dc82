// A Hugging Face cache: models--{owner}--{name}/snapshots/{commit}/... links
// into models--…/blobs/{sha256 or git oid}, refs/{branch} naming commits.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "locate/stores.hpp"
#include "model/limits.hpp"

namespace fs = std::filesystem;

namespace modelcat::locate {

namespace {

struct Repo {
    std::string id;  // owner/name
    fs::path dir;
    std::map<std::string, std::vector<std::string>> refs;  // commit -> refs naming it (main, pr/1, ...)
};

// models--owner--name -> owner/name (the Hub forbids "--" inside names, so the first one splits).
std::string repo_id(const std::string& folder) {
    std::string rest = folder.substr(std::string("models--").size());
    const size_t sep = rest.find("--");
    return sep == std::string::npos ? rest : rest.substr(0, sep) + "/" + rest.substr(sep + 2);
}

// A ref file holds one commit: a larger file, or one that is not a 40-hex commit, is a problem, not read on.
std::map<std::string, std::vector<std::string>> read_refs(const fs::path& refs_dir, std::vector<model::Failure>& problems) {
    std::map<std::string, std::vector<std::string>> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(refs_dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec) || non_utf8_path(it->path().string())) continue;  // a ref is named by its path
        const std::string where = it->path().string();
        if (it->file_size(ec) > model::Limits::max_ref_bytes) {
            problems.push_back({.location = where, .message = "a ref over " + std::to_string(model::Limits::max_ref_bytes) +
                                                              " bytes (the cap): not read"});
            continue;
        }
        std::ifstream in(it->path());
        std::string commit;
        std::getline(in, commit);
        if (commit.size() != 40 || commit.find_first_not_of("0123456789abcdef") != std::string::npos) {
            problems.push_back({.location = where, .message = "a ref that does not hold a 40-hex commit"});
            continue;
        }
        out[commit].push_back(it->path().lexically_relative(refs_dir).string());
    }
    for (auto& [c, names] : out) std::sort(names.begin(), names.end());
    return out;
}

// Snapshots named by refs/main first, then by other refs, then the rest: the first name of a blob is the current one.
// A snapshot that is a link is not walked: it could lead out of the store, or back up into it.
std::vector<fs::path> snapshots_in_order(const Repo& repo, std::vector<model::Failure>& problems) {
    std::vector<fs::path> dirs;
    std::error_code ec;
    for (fs::directory_iterator it(repo.dir / "snapshots", ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_symlink(ec))
            problems.push_back({.location = it->path().string(), .message = "a snapshot that is a symlink, not a folder: not walked"});
        else if (it->is_directory(ec)) dirs.push_back(it->path());
    }
    auto rank = [&](const fs::path& d) {
        auto r = repo.refs.find(d.filename().string());
        if (r == repo.refs.end()) return 2;
        return std::find(r->second.begin(), r->second.end(), "main") != r->second.end() ? 0 : 1;
    };
    std::sort(dirs.begin(), dirs.end(), [&](const auto& a, const auto& b) { return std::pair(rank(a), a) < std::pair(rank(b), b); });
    return dirs;
}

// The blob a snapshot link leads to; the link itself when it leads nowhere (the read then fails on it).
std::string blob_of(const std::string& link) {
    std::error_code ec;
    fs::path real = fs::canonical(link, ec);
    return ec ? link : real.string();
}

// A blob named by the sha256 of its content (LFS files): trusted by name as its identity.
std::optional<std::string> sha256_name(const std::string& blob) {
    const fs::path p(blob);
    const std::string n = p.filename().string();
    if (p.parent_path().filename() != "blobs" || n.size() != 64 || n.find_first_not_of("0123456789abcdef") != std::string::npos)
        return std::nullopt;
    return n;
}

// owner/name@commit plus the model's path in the snapshot: a file, a split set's stem, a checkpoint's folder.
std::string snapshot_name(const Repo& repo, const fs::path& snap, const ModelPlan& m) {
    std::string at = repo.id + "@" + snap.filename().string();
    const std::string rel = fs::path(model_path(m)).lexically_relative(snap).string();
    return rel.empty() || rel == "." ? at : at + "/" + rel;
}

// The plan with every link replaced by its blob, and the name it has in this snapshot.
void to_blobs(ModelPlan& m, const Repo& repo, const fs::path& snap, const std::string& root) {
    model::StoreNameRow n;
    n.store = "hf_cache";
    n.root = root;
    n.name = m.name = snapshot_name(repo, snap, m);
    n.repo = repo.id;
    n.revision = snap.filename().string();
    if (auto r = repo.refs.find(*n.revision); r != repo.refs.end()) {
        std::string joined;
        for (const auto& ref : r->second) joined += (joined.empty() ? "" : ",") + ref;
        n.refs = joined;
    }
    n.path = m.data_files.front();
    auto relink = [&](std::string& f) {
        f = blob_of(f);
        if (auto d = sha256_name(f)) m.digests[f] = *d;
    };
    for (auto& f : m.data_files) relink(f);
    if (m.index) relink(*m.index);
    if (m.config) relink(*m.config);
    n.location = m.data_files.front();
    if (auto d = sha256_name(n.location)) n.digest = *d;
    else if (fs::path(n.location).parent_path().filename() == "blobs") n.digest = fs::path(n.location).filename().string();
    m.names.push_back(std::move(n));
}

}  // namespace

StorePlan plan_hf_cache(const std::string& root) {
    StorePlan out;
    std::vector<fs::path> repo_dirs;
    std::error_code ec;
    if (fs::path(root).filename().string().starts_with("models--")) repo_dirs.push_back(root);
    else
        for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().filename().string().starts_with("models--")) repo_dirs.push_back(it->path());
    std::sort(repo_dirs.begin(), repo_dirs.end());
    for (const auto& dir : repo_dirs) {
        if (auto p = non_utf8_path(dir.string())) {
            out.problems.push_back(*p);
            continue;
        }
        Repo repo{repo_id(dir.filename().string()), dir, read_refs(dir / "refs", out.problems)};
        for (const auto& snap : snapshots_in_order(repo, out.problems)) {
            if (auto p = non_utf8_path(snap.string())) {
                out.problems.push_back(*p);
                continue;
            }
            ExpandedInputs found = expand_inputs({snap.string()});
            CrawlPlan plan = plan_crawl(found.files, found.problems, LocalLocator{});
            out.problems.insert(out.problems.end(), plan.problems.begin(), plan.problems.end());
            for (auto& m : plan.models) {
                to_blobs(m, repo, snap, root);
                out.models.push_back(std::move(m));
            }
        }
    }
    return out;
}

}  // namespace modelcat::locate
