-- modelcat catalogue, schema version 11: one name, one meaning.
-- files.kv_count held the header's declared count while models.kv_count holds distinct keys:
-- the file's column now says what it is. duplicates.locations was a count: now location_count.
ALTER TABLE files RENAME COLUMN kv_count TO declared_kv_count;  -- GGUF kv_count as declared (duplicates included); safetensors __metadata__ entries

-- Duplicates: same sha256 where known, else same size and header hash.
DROP VIEW duplicates;
CREATE VIEW duplicates AS
SELECT size, header_hash, sha256,
       count(*) AS location_count,                      -- how many files hold this content
       group_concat(location, char(10)) AS paths,       -- their locations, one per line
       group_concat(model_id, ',') AS model_ids
  FROM (SELECT * FROM files WHERE status <> 'gone' AND header_hash IS NOT NULL AND role = 'data' ORDER BY location)
 GROUP BY coalesce(sha256, size || ':' || header_hash)
HAVING count(*) > 1;
