-- Brings a schema-9 catalogue to 10: what a Hub crawl spends of each rate-limit budget, and the
-- Xet identity of a file.
ALTER TABLE files ADD COLUMN xet_hash TEXT;
ALTER TABLE files ADD COLUMN resolver_calls INTEGER;
ALTER TABLE files ADD COLUMN storage_reads INTEGER;

ALTER TABLE crawls ADD COLUMN api_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN resolver_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN storage_reads INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN status TEXT CHECK (status IN ('finished', 'interrupted'));
