#include "catalog/audit_store.hpp"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <cmath>

namespace modelcat::catalog {

namespace {

void bind_optional(SQLite::Statement& st, int i, const std::optional<uint64_t>& v) {
    if (v) st.bind(i, static_cast<int64_t>(*v));
    else st.bind(i);
}

void bind_optional(SQLite::Statement& st, int i, const std::optional<double>& v) {
    if (v && std::isfinite(*v)) st.bind(i, *v);
    else st.bind(i);  // NaN and infinity are stored as NULL: SQLite has no such REAL
}

void bind_text(SQLite::Statement& st, int i, const std::string& s) {
    if (s.empty()) st.bind(i);
    else st.bind(i, s);
}

uint64_t count(const model::AuditResult& r, std::initializer_list<model::Verdict> verdicts) {
    uint64_t n = 0;
    for (const auto& t : r.tensors)
        for (auto v : verdicts) n += t.verdict == v;
    return n;
}

void store_tensors(SQLite::Database& db, int64_t audit_id, const model::AuditResult& r) {
    SQLite::Statement st(db, "INSERT INTO audit_tensors VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    for (const auto& t : r.tensors) {
        st.bind(1, audit_id);
        bind_text(st, 2, t.gguf_tensor);
        bind_text(st, 3, t.source_tensor);
        bind_text(st, 4, t.gguf_type);
        bind_text(st, 5, t.source_dtype);
        bind_text(st, 6, t.transform);
        st.bind(7, model::verdict_name(t.verdict));
        st.bind(8, static_cast<int64_t>(t.elements));
        st.bind(9, static_cast<int64_t>(t.compared));
        st.bind(10, static_cast<int64_t>(t.mismatches));
        bind_optional(st, 11, t.first_mismatch_row);
        bind_optional(st, 12, t.first_mismatch_col);
        bind_optional(st, 13, t.max_abs_error);
        bind_optional(st, 14, t.rmse);
        bind_optional(st, 15, t.nmse);
        bind_optional(st, 16, t.cosine);
        st.exec();
        st.reset();
    }
}

void store_metadata(SQLite::Database& db, int64_t audit_id, const model::AuditResult& r) {
    SQLite::Statement st(db,
        "INSERT INTO audit_metadata (audit_id, key, source_path, gguf_value, source_value, verdict, effect, note)"
        " VALUES (?,?,?,?,?,?,?,?)");
    for (const auto& m : r.metadata) {
        st.bind(1, audit_id);
        st.bind(2, m.key);
        st.bind(3, m.source_path);
        bind_text(st, 4, m.gguf_value);
        bind_text(st, 5, m.source_value);
        st.bind(6, model::verdict_name(m.verdict));
        st.bind(7, m.fails() ? "fail" : m.warns() ? "warn" : "ok");
        bind_text(st, 8, m.note);
        st.exec();
        st.reset();
    }
}

}  // namespace

std::map<std::string, std::string> tensor_name_map(SQLite::Database& db, const std::string& architecture) {
    SQLite::Statement st(db, "SELECT source_kind, gguf_kind FROM tensor_name_map WHERE architecture = ?");
    st.bind(1, architecture);
    std::map<std::string, std::string> m;
    while (st.executeStep()) m.emplace(st.getColumn(0).getString(), st.getColumn(1).getString());
    return m;
}

int64_t store_audit(SQLite::Database& db, const model::AuditResult& r) {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement st(db,
        "INSERT INTO audits (gguf_location, source_location, gguf_model_id, source_model_id, started_at, finished_at,"
        " verdict, source_tensors, matched, exact, within_tolerance, mismatched, unmatched_source, unmatched_gguf,"
        " generated_ok, generated_bad, sample_rows, bytes_read, seconds) VALUES (?1, ?2,"
        " (SELECT model_id FROM files WHERE location = ?1), coalesce((SELECT model_id FROM files WHERE location = ?15),"
        " (SELECT min(model_id) FROM files WHERE location = ?2 OR location LIKE ?2 || '/%')),"
        " strftime('%Y-%m-%dT%H:%M:%fZ', 'now', printf('-%.3f seconds', ?19)), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),"
        " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?19)");
    st.bind(1, r.gguf_location);
    st.bind(2, r.source_location);
    st.bind(3, r.passed() ? "pass" : "fail");
    st.bind(4, static_cast<int64_t>(r.source_tensors));
    st.bind(5, static_cast<int64_t>(count(r, {model::Verdict::exact, model::Verdict::within_tolerance, model::Verdict::mismatch, model::Verdict::not_compared})));
    st.bind(6, static_cast<int64_t>(count(r, {model::Verdict::exact})));
    st.bind(7, static_cast<int64_t>(count(r, {model::Verdict::within_tolerance})));
    st.bind(8, static_cast<int64_t>(count(r, {model::Verdict::mismatch, model::Verdict::not_compared})));
    st.bind(9, static_cast<int64_t>(count(r, {model::Verdict::unmatched_source})));
    st.bind(10, static_cast<int64_t>(count(r, {model::Verdict::unmatched_gguf})));
    st.bind(11, static_cast<int64_t>(count(r, {model::Verdict::generated_ok})));
    st.bind(12, static_cast<int64_t>(count(r, {model::Verdict::generated_mismatch})));
    st.bind(13, static_cast<int64_t>(r.sample_rows));
    st.bind(14, static_cast<int64_t>(r.bytes_read));
    st.bind(15, r.source_first_file);
    st.bind(19, r.seconds);
    st.exec();
    int64_t id = db.getLastInsertRowid();
    store_tensors(db, id, r);
    store_metadata(db, id, r);
    tx.commit();
    return id;
}

}  // namespace modelcat::catalog
