-- modelcat catalogue, schema version 5: what identifies a remote file.
ALTER TABLE files ADD COLUMN etag TEXT;           -- ETag of the final response (the CDN's, behind the Hub's redirect)
ALTER TABLE files ADD COLUMN last_modified TEXT;  -- Last-Modified of the final response
ALTER TABLE files ADD COLUMN sha256 TEXT;         -- the content's sha256 when the server says it (Hub: X-Linked-Etag, or lfs.oid from an hf:// listing)
ALTER TABLE files ADD COLUMN final_url TEXT;      -- URL after redirects
ALTER TABLE files ADD COLUMN http_status INTEGER; -- status of the last header read (206, or 200 for a small whole file)
ALTER TABLE files ADD COLUMN revision TEXT;       -- hf:// inputs: the commit the listing pinned (X-Repo-Commit), else the revision asked for

-- Duplicates: same sha256 where known, else same size and header hash.
DROP VIEW duplicates;
CREATE VIEW duplicates AS
SELECT size, header_hash, sha256, count(*) AS locations, group_concat(location, char(10)) AS paths,
       group_concat(model_id, ',') AS model_ids
  FROM (SELECT * FROM files WHERE status <> 'gone' AND header_hash IS NOT NULL AND role = 'data' ORDER BY location)
 GROUP BY coalesce(sha256, size || ':' || header_hash)
HAVING count(*) > 1;
