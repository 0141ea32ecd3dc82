-- Brings a schema-16 catalogue to 17: what the Hub's models API last said of each repository a
-- many-repository input (hf://AUTHOR/*, hf-search:?...) lists, so that a night lists only what
-- changed; and what each crawl spent on that discovery (no rows to move: older crawls listed none).
ALTER TABLE crawls ADD COLUMN model_pages INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN repo_listings INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN repos_changed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN repos_unchanged INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN repos_gone INTEGER NOT NULL DEFAULT 0;
CREATE TABLE hub_repos (
    scope         TEXT NOT NULL,
    repo          TEXT NOT NULL,
    last_modified TEXT NOT NULL,
    sha           TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('ok', 'pending', 'gone', 'left')),
    first_crawl_id INTEGER NOT NULL REFERENCES crawls(crawl_id),
    seen_crawl_id  INTEGER NOT NULL REFERENCES crawls(crawl_id),
    gone_crawl_id  INTEGER REFERENCES crawls(crawl_id),
    PRIMARY KEY (scope, repo)
);
CREATE TABLE hub_listings (
    scope           TEXT PRIMARY KEY,
    newest          TEXT,
    listed_crawl_id INTEGER NOT NULL REFERENCES crawls(crawl_id),
    full_crawl_id   INTEGER REFERENCES crawls(crawl_id)
);
