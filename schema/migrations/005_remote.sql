-- Brings a schema-4 catalogue to 5: what identifies a remote file.
ALTER TABLE files ADD COLUMN etag TEXT;
ALTER TABLE files ADD COLUMN last_modified TEXT;
ALTER TABLE files ADD COLUMN sha256 TEXT;
ALTER TABLE files ADD COLUMN final_url TEXT;
ALTER TABLE files ADD COLUMN http_status INTEGER;
ALTER TABLE files ADD COLUMN revision TEXT;
