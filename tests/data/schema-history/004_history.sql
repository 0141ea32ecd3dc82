-- modelcat catalogue, schema version 4: incremental crawls, history and duplicates.

-- What identifies a file's content without reading it again.
ALTER TABLE files ADD COLUMN inode INTEGER;             -- local files: inode number
ALTER TABLE files ADD COLUMN device INTEGER;            -- local files: device id
ALTER TABLE files ADD COLUMN header_hash TEXT;          -- 64-bit content hash (hex) of the header bytes: equal size + hash = same content
ALTER TABLE files ADD COLUMN checked_crawl_id INTEGER REFERENCES crawls(crawl_id);  -- last crawl that saw it unchanged or read it
ALTER TABLE files ADD COLUMN gone_crawl_id INTEGER REFERENCES crawls(crawl_id);     -- crawl that found it missing (status 'gone')

ALTER TABLE crawls ADD COLUMN files_new INTEGER NOT NULL DEFAULT 0;        -- read for the first time
ALTER TABLE crawls ADD COLUMN files_changed INTEGER NOT NULL DEFAULT 0;    -- re-read because size, mtime or identity changed
ALTER TABLE crawls ADD COLUMN files_unchanged INTEGER NOT NULL DEFAULT 0;  -- skipped: identity unchanged, no header bytes read
ALTER TABLE crawls ADD COLUMN files_gone INTEGER NOT NULL DEFAULT 0;       -- catalogued before, missing now

-- One row per model that was new, changed, failed or gone in a crawl: the
-- history that `changes` reads (unchanged models are only counted in crawls).
CREATE TABLE model_events (
    event_id      INTEGER PRIMARY KEY,
    crawl_id      INTEGER NOT NULL REFERENCES crawls(crawl_id),
    location      TEXT NOT NULL,          -- the model's first file (gone: the file that vanished)
    event         TEXT NOT NULL CHECK (event IN ('new', 'changed', 'failed', 'gone')),
    file_bytes_before INTEGER,            -- NULL for new models
    file_bytes_after  INTEGER,            -- NULL for failed and gone
    policy_before TEXT,                   -- models.policy_hash before and after
    policy_after  TEXT,
    census_before TEXT,                   -- quant_summary.census before and after
    census_after  TEXT,
    message       TEXT                    -- failed: the reason
);
CREATE INDEX model_events_crawl ON model_events(crawl_id);

-- Identical content at several locations (mirrors, copies): same size and header hash.
CREATE VIEW duplicates AS
SELECT size, header_hash, count(*) AS locations, group_concat(location, char(10)) AS paths,
       group_concat(model_id, ',') AS model_ids
  FROM (SELECT * FROM files WHERE status <> 'gone' AND header_hash IS NOT NULL AND role = 'data' ORDER BY location)
 GROUP BY size, header_hash
HAVING count(*) > 1;
