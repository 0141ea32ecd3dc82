#include "catalog/store_names.hpp"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include "catalog/named_statement.hpp"

namespace modelcat::catalog {

namespace {

void upsert_names(SQLite::Database& db, int64_t crawl_id, const std::vector<model::StoreNameRow>& names) {
    NamedStatement st(db,
                    "INSERT INTO store_names (store, root, name, role, repo, revision, refs, digest, path, location,"
                    " model_id, status, seen_crawl_id) VALUES (:store, :root, :name, :role, :repo, :revision, :refs,"
                    " :digest, :path, :location, (SELECT model_id FROM files WHERE location = :location), 'ok', :crawl_id)"
                    " ON CONFLICT (store, root, name, role) DO UPDATE SET repo = excluded.repo,"
                    " revision = excluded.revision, refs = excluded.refs, digest = excluded.digest, path = excluded.path,"
                    " location = excluded.location, model_id = excluded.model_id, status = 'ok',"
                    " seen_crawl_id = excluded.seen_crawl_id, gone_crawl_id = NULL");
    for (const model::StoreNameRow& n : names) {
        st.bind(":crawl_id", crawl_id);
        st.bind(":store", n.store);
        st.bind(":root", n.root);
        st.bind(":name", n.name);
        st.bind(":role", n.role);
        st.bind(":repo", n.repo);
        st.bind(":revision", n.revision);
        st.bind(":refs", n.refs);
        st.bind(":digest", n.digest);
        st.bind(":path", n.path);
        st.bind(":location", n.location);
        st.exec();
    }
}

}  // namespace

void write_store_names(SQLite::Database& db, int64_t crawl_id, const std::vector<model::StoreNameRow>& names,
                       const std::vector<std::pair<std::string, std::string>>& model_names,
                       const std::vector<std::string>& roots) {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    upsert_names(db, crawl_id, names);
    SQLite::Statement rename(db, "UPDATE models SET name = :name WHERE location = :location AND name <> :name");
    for (const auto& [location, name] : model_names) {
        rename.bind(":location", location);
        rename.bind(":name", name);
        rename.exec();
        rename.reset();
    }
    SQLite::Statement gone(db, "UPDATE store_names SET status = 'gone', gone_crawl_id = :crawl_id"
                               " WHERE root = :root AND status = 'ok' AND seen_crawl_id <> :crawl_id");
    gone.bind(":crawl_id", crawl_id);
    for (const auto& root : roots) {
        gone.bind(":root", root);
        gone.exec();
        gone.reset();
    }
    tx.commit();
}

}  // namespace modelcat::catalog
