#include "catalog/hub_repos.hpp"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include "catalog/named_statement.hpp"

namespace modelcat::catalog {

std::vector<model::HubRepoRow> read_hub_repos(SQLite::Database& db, const std::vector<std::string>& scopes,
                                              const std::string& endpoint) {
    // the folder's files: locations from FOLDER/ up to FOLDER0 ('0' follows '/'), through files' unique index
    SQLite::Statement st(db, "SELECT scope, repo, last_modified, sha,"
                             " iif(status = 'ok' AND EXISTS (SELECT 1 FROM files WHERE location > ?2 || '/' || repo || '/resolve/main/'"
                             "  AND location < ?2 || '/' || repo || '/resolve/main0' AND (reread OR status = 'stale')), 'pending', status)"
                             " FROM hub_repos WHERE scope = ?1");
    st.bind(2, endpoint);
    std::vector<model::HubRepoRow> out;
    for (const auto& scope : scopes) {
        st.bind(1, scope);
        while (st.executeStep())
            out.push_back({st.getColumn(0).getString(), st.getColumn(1).getString(), st.getColumn(2).getString(),
                           st.getColumn(3).getString(), st.getColumn(4).getString(), true});
        st.reset();
    }
    return out;
}

std::vector<model::HubListingRow> read_hub_listings(SQLite::Database& db, const std::vector<std::string>& scopes) {
    SQLite::Statement st(db, "SELECT l.scope, l.newest, CAST(strftime('%s', c.started_at) AS REAL) FROM hub_listings l"
                             " LEFT JOIN crawls c ON c.crawl_id = l.full_crawl_id WHERE l.scope = ?");
    std::vector<model::HubListingRow> out;
    for (const auto& scope : scopes) {
        st.bind(1, scope);
        if (st.executeStep()) {
            model::HubListingRow l{st.getColumn(0).getString(), std::nullopt, std::nullopt, false};
            if (!st.getColumn(1).isNull()) l.newest = st.getColumn(1).getString();
            if (!st.getColumn(2).isNull()) l.full_at = st.getColumn(2).getDouble();
            out.push_back(std::move(l));
        }
        st.reset();
    }
    return out;
}

void write_hub_discovery(SQLite::Database& db, int64_t crawl_id, const std::vector<model::HubRepoRow>& repos,
                         const std::vector<model::HubListingRow>& listings) {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    NamedStatement repo(db,
                        "INSERT INTO hub_repos (scope, repo, last_modified, sha, status, first_crawl_id, seen_crawl_id, gone_crawl_id)"
                        " VALUES (:scope, :repo, :last_modified, :sha, :status, :crawl_id, :crawl_id,"
                        "  iif(:status IN ('gone', 'left'), :crawl_id, NULL))"
                        " ON CONFLICT (scope, repo) DO UPDATE SET last_modified = excluded.last_modified, sha = excluded.sha,"
                        "  status = excluded.status, seen_crawl_id = iif(:seen, excluded.seen_crawl_id, seen_crawl_id),"
                        "  gone_crawl_id = excluded.gone_crawl_id");
    for (const auto& r : repos) {
        repo.bind(":scope", r.scope);
        repo.bind(":repo", r.repo);
        repo.bind(":last_modified", r.last_modified);
        repo.bind(":sha", r.sha);
        repo.bind(":status", r.status);
        repo.bind(":crawl_id", crawl_id);
        repo.bind(":seen", int64_t{r.seen});
        repo.exec();
    }
    NamedStatement listing(db,
                           "INSERT INTO hub_listings (scope, newest, listed_crawl_id, full_crawl_id)"
                           " VALUES (:scope, :newest, :crawl_id, iif(:full, :crawl_id, NULL))"
                           " ON CONFLICT (scope) DO UPDATE SET newest = coalesce(excluded.newest, newest),"
                           "  listed_crawl_id = excluded.listed_crawl_id, full_crawl_id = coalesce(excluded.full_crawl_id, full_crawl_id)");
    for (const auto& l : listings) {
        listing.bind(":scope", l.scope);
        listing.bind(":newest", l.newest);
        listing.bind(":crawl_id", crawl_id);
        listing.bind(":full", int64_t{l.full});
        listing.exec();
    }
    tx.commit();
}

}  // namespace modelcat::catalog
