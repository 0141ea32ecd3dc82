#include "locate/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "locate/checkpoint.hpp"
#include "locate/hub.hpp"
#include "locate/split_name.hpp"
#include "model/error.hpp"

namespace fs = std::filesystem;

namespace modelcat::locate {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) { return s.ends_with(suffix); }

std::string base_name(const std::string& location) { return location.substr(location.rfind('/') + 1); }

ModelPlan checkpoint_plan(const std::string& index_location, const Locator& locator) {
    ModelPlan m;
    m.kind = ModelPlan::Kind::checkpoint;
    m.name = hub_repo_or(index_location, base_name(parent(index_location)));
    CheckpointFiles c = read_checkpoint_index(index_location, locator);
    m.index = std::move(c.index);
    m.parsed_index = std::move(c.parsed_index);
    m.data_files = std::move(c.shards);
    if (locator.exists(c.config)) m.config = std::move(c.config);
    return m;
}

}  // namespace

CrawlPlan plan_crawl(const std::vector<std::string>& files, std::vector<model::Failure> problems, const Locator& locator) {
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
        } catch (const model::FormatError& e) {
            plan.problems.push_back(e.failure(idx));
        } catch (const std::exception& e) {
            plan.problems.push_back({.location = idx, .message = e.what()});
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
            try {
                m.data_files = split_set_files(f);
            } catch (const model::FormatError& e) {
                plan.problems.push_back(e.failure());
                continue;
            }
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

}  // namespace modelcat::locate

namespace modelcat::locate {

std::string model_path(const ModelPlan& plan) {
    if (plan.kind == ModelPlan::Kind::split_gguf) return parse_split_name(plan.data_files.front())->prefix;
    if (plan.kind == ModelPlan::Kind::checkpoint) return parent(plan.index.value_or(plan.data_files.front()));
    return plan.data_files.front();
}

std::vector<std::string> all_files(const ModelPlan& plan) {
    std::vector<std::string> files = plan.data_files;
    if (plan.index) files.push_back(*plan.index);
    if (plan.config) files.push_back(*plan.config);
    for (const auto& m : plan.manifests) files.push_back(m.location);
    return files;
}

}  // namespace modelcat::locate
