#pragma once
// hub_repos and hub_listings: what the Hub's models API last said of the repositories a
// many-repository input lists, and how far each input's last listing went (schema/current.sql).
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/rows.hpp"

namespace modelcat::catalog {

// The recorded repositories and listings of these scopes (inputs as given). A repository recorded
// 'ok' whose files under ENDPOINT/REPO/resolve/main include one to read again (marked reread by a
// migration, or stale: its last read failed) reads as 'pending': the next crawl lists it again.
std::vector<model::HubRepoRow> read_hub_repos(SQLite::Database& db, const std::vector<std::string>& scopes,
                                              const std::string& endpoint);
std::vector<model::HubListingRow> read_hub_listings(SQLite::Database& db, const std::vector<std::string>& scopes);

// In one transaction: each repository's row as this crawl leaves it (a 'gone' or 'left' one with
// this crawl as gone_crawl_id; one not `seen` keeps its seen_crawl_id), and each listing that
// ended where it could (a full one as the last full listing).
void write_hub_discovery(SQLite::Database& db, int64_t crawl_id, const std::vector<model::HubRepoRow>& repos,
                         const std::vector<model::HubListingRow>& listings);

}  // namespace modelcat::catalog
