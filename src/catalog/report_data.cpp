#include "catalog/report_data.hpp"

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "catalog/report_params.hpp"

namespace modelcat::catalog {

namespace {

std::optional<int64_t> opt_int(const SQLite::Column& c) {
    return c.isNull() ? std::nullopt : std::optional<int64_t>(c.getInt64());
}

std::string text(const SQLite::Column& c) { return c.isNull() ? std::string() : c.getString(); }

// model_ids of the selection: every model when nothing narrows it, else those
// named by a ref plus those whose name matches the pattern.
std::set<int64_t> selected_ids(SQLite::Database& db, const ReportSelection& sel) {
    std::set<int64_t> ids;
    bool everything = !sel.pattern && sel.refs.empty();
    SQLite::Statement all(db, "SELECT model_id FROM models WHERE :everything OR name LIKE :pattern");
    all.bind(":everything", everything ? 1 : 0);
    if (sel.pattern) all.bind(":pattern", like_pattern(*sel.pattern));
    while (all.executeStep()) ids.insert(all.getColumn(0).getInt64());
    if (sel.pattern && ids.empty())  // a pattern that selects nothing is a mistyped name, not an empty page
        throw std::runtime_error("no catalogued model's name matches --pattern '" + *sel.pattern + "' (LIKE '" +
                                 like_pattern(*sel.pattern) + "': without %, a part of the name)");
    SQLite::Statement ref(db, "SELECT model_id FROM model_refs WHERE ref = :ref");
    for (const auto& r : sel.refs) {
        ref.reset();
        ref.bind(":ref", r);
        if (!ref.executeStep()) throw std::runtime_error("no catalogued model '" + r + "' (give a model_id, name or location)");
        ids.insert(ref.getColumn(0).getInt64());
    }
    return ids;
}

// One row per selected model: the quant table's columns, majority type, kind, policy and recipe.
std::vector<ReportModel> load_models(SQLite::Database& db, const std::set<int64_t>& ids) {
    SQLite::Statement st(db, R"(
        SELECT q.model_id, q.name, q.location, q.format, q.architecture, q.file_type, f.name, q.file_bytes, q.params,
               q.bits_per_weight, q.census,
               (SELECT mj.type_name FROM model_majority_type mj WHERE mj.model_id = q.model_id),
               q.kind, (SELECT policy_hash FROM models WHERE model_id = q.model_id), r.recipe, r.why
          FROM quant_summary q LEFT JOIN file_type_names f ON f.file_type = q.file_type
          LEFT JOIN recipes r ON r.model_id = q.model_id
         WHERE q.model_id = :id)");
    std::vector<ReportModel> out;
    for (int64_t id : ids) {
        st.reset();
        st.bind(":id", id);
        if (!st.executeStep()) continue;
        ReportModel m;
        m.id = id;
        m.name = text(st.getColumn(1));
        m.location = text(st.getColumn(2));
        m.format = text(st.getColumn(3));
        m.architecture = text(st.getColumn(4));
        m.file_type = opt_int(st.getColumn(5));
        m.file_type_name = text(st.getColumn(6));
        m.file_bytes = opt_int(st.getColumn(7));
        m.params = opt_int(st.getColumn(8));
        if (!st.getColumn(9).isNull()) m.bits_per_weight = st.getColumn(9).getDouble();
        m.census = text(st.getColumn(10));
        m.majority_type = text(st.getColumn(11));
        const std::string kind = text(st.getColumn(12));
        m.policy_hash = text(st.getColumn(13));
        m.recipe = text(st.getColumn(14));
        m.recipe_why = text(st.getColumn(15));
        if (kind != "model") m.model_kind = kind;
        out.push_back(std::move(m));
    }
    std::sort(out.begin(), out.end(), [](const ReportModel& a, const ReportModel& b) {
        return std::tie(a.architecture, a.file_bytes, a.name) < std::tie(b.architecture, b.file_bytes, b.name);
    });
    return out;
}

void load_tensors(SQLite::Database& db, std::vector<ReportModel>& models) {
    SQLite::Statement st(db, R"(
        SELECT t.name, t.layer, t.kind, t.type_name, t.dims, t.n_elements, t.bytes
          FROM files f CROSS JOIN tensors t ON t.file_id = f.file_id  -- the table's own order: file_id first
         WHERE f.model_id = :id ORDER BY f.shard, t.offset)");
    for (auto& m : models) {
        if (!m.model_kind.empty()) continue;
        st.reset();
        st.bind(":id", m.id);
        while (st.executeStep()) {
            ReportTensor t;
            t.name = text(st.getColumn(0));
            t.layer = opt_int(st.getColumn(1));
            t.kind = text(st.getColumn(2));
            t.type = text(st.getColumn(3));
            t.dims = text(st.getColumn(4));
            t.elements = st.getColumn(5).getInt64();
            t.bytes = st.getColumn(6).getInt64();
            m.tensors.push_back(std::move(t));
        }
    }
}

std::vector<ReportGroup> load_groups(SQLite::Database& db, const std::vector<ReportModel>& models) {
    std::map<int64_t, size_t> index;
    for (size_t i = 0; i < models.size(); ++i)
        if (models[i].model_kind.empty()) index[models[i].id] = i;
    std::vector<ReportGroup> out;
    SQLite::Statement st(db, "SELECT architecture, file_type_name, model_ids FROM same_file_type_different_policy "
                             "ORDER BY architecture, file_type");
    while (st.executeStep()) {
        ReportGroup g{text(st.getColumn(0)), text(st.getColumn(1)), {}};
        std::stringstream ids(text(st.getColumn(2)));
        for (std::string id; std::getline(ids, id, ',');) {
            int64_t model_id = 0;
            auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), model_id);
            if (error != std::errc() || end != id.data() + id.size()) continue;  // a sent catalogue's view can hold anything
            if (auto it = index.find(model_id); it != index.end()) g.members.push_back(it->second);
        }
        std::sort(g.members.begin(), g.members.end());
        std::set<std::string> policies;  // a selection can hold one policy of a group: then it is no group
        for (size_t i : g.members) policies.insert(models[i].policy_hash);
        if (policies.size() > 1) out.push_back(std::move(g));
    }
    return out;
}

std::vector<ReportType> load_ggml_types(SQLite::Database& db) {
    std::vector<ReportType> out;
    SQLite::Statement st(db, "SELECT name, type_id, bits_per_weight FROM ggml_types ORDER BY bits_per_weight, type_id");
    while (st.executeStep()) out.push_back({text(st.getColumn(0)), st.getColumn(1).getInt64(), st.getColumn(2).getDouble()});
    return out;
}

std::optional<ReportCrawl> load_last_crawl(SQLite::Database& db) {
    SQLite::Statement st(db, "SELECT crawl_id, started_at, finished_at FROM crawls ORDER BY crawl_id DESC LIMIT 1");
    if (!st.executeStep()) return std::nullopt;
    return ReportCrawl{st.getColumn(0).getInt64(), text(st.getColumn(1)), text(st.getColumn(2))};
}

}  // namespace

ReportData load_report_data(SQLite::Database& db, const ReportSelection& selection) {
    std::set<int64_t> ids = selected_ids(db, selection);
    if (selection.max_models && ids.size() > selection.max_models)
        throw std::runtime_error(std::to_string(ids.size()) + " models selected; an HTML report shows at most " +
                                 std::to_string(selection.max_models) + " (narrow it with --pattern or --model)");
    ReportData data;
    data.models = load_models(db, ids);
    load_tensors(db, data.models);
    data.groups = load_groups(db, data.models);
    data.ggml_types = load_ggml_types(db);
    data.last_crawl = load_last_crawl(db);
    return data;
}

}  // namespace modelcat::catalog
