-- Brings a schema-3 catalogue to 4: incremental crawls, history and duplicates.
ALTER TABLE files ADD COLUMN inode INTEGER;
ALTER TABLE files ADD COLUMN device INTEGER;
ALTER TABLE files ADD COLUMN header_hash TEXT;
ALTER TABLE files ADD COLUMN checked_crawl_id INTEGER REFERENCES crawls(crawl_id);
ALTER TABLE files ADD COLUMN gone_crawl_id INTEGER REFERENCES crawls(crawl_id);

ALTER TABLE crawls ADD COLUMN files_new INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN files_changed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN files_unchanged INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN files_gone INTEGER NOT NULL DEFAULT 0;

CREATE TABLE model_events (
    event_id      INTEGER PRIMARY KEY,
    crawl_id      INTEGER NOT NULL REFERENCES crawls(crawl_id),
    location      TEXT NOT NULL,
    event         TEXT NOT NULL CHECK (event IN ('new', 'changed', 'failed', 'gone')),
    file_bytes_before INTEGER,
    file_bytes_after  INTEGER,
    policy_before TEXT,
    policy_after  TEXT,
    census_before TEXT,
    census_after  TEXT,
    message       TEXT
);
CREATE INDEX model_events_crawl ON model_events(crawl_id);
