-- modelcat catalogue: what a Hub crawl spends of each rate-limit budget, and the Xet identity of a file.
ALTER TABLE files ADD COLUMN xet_hash TEXT;          -- the content's Xet hash when the Hub says it (X-Xet-Hash on the resolve/ redirect, or xetHash in the listing)
ALTER TABLE files ADD COLUMN resolver_calls INTEGER; -- remote files: requests to the file's /resolve/ URL (the Hub's "resolvers" budget), retries included
ALTER TABLE files ADD COLUMN storage_reads INTEGER;  -- remote files: requests to where the file's bytes are (the redirect target, or a plain URL)

ALTER TABLE crawls ADD COLUMN api_calls INTEGER NOT NULL DEFAULT 0;      -- requests to /api/ URLs (Hub tree listings: the "api" budget)
ALTER TABLE crawls ADD COLUMN resolver_calls INTEGER NOT NULL DEFAULT 0; -- requests to /resolve/ URLs (the Hub's "resolvers" budget)
ALTER TABLE crawls ADD COLUMN storage_reads INTEGER NOT NULL DEFAULT 0;  -- other HTTP requests: redirect targets and plain URLs
ALTER TABLE crawls ADD COLUMN status TEXT CHECK (status IN ('finished', 'interrupted')); -- NULL while running or if killed; 'interrupted': stopped by SIGINT/SIGTERM or --deadline, the models not started are left for the next crawl
