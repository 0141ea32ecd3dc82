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

-- One row per model: the quant table, with the file_type's llama.cpp name beside its number.
DROP VIEW quant_summary;
CREATE VIEW quant_summary AS
SELECT m.model_id, m.name, m.location, m.format, m.architecture, m.file_type,
       f.name AS file_type_name,                        -- file_type_names.name (MOSTLY_Q4_K_M); NULL when absent or unknown
       m.file_bytes, m.header_bytes, m.params,
       CASE WHEN m.params > 0 THEN (m.file_bytes - m.header_bytes) * 8.0 / m.params END AS bits_per_weight,
       m.tensor_count, m.kv_count, m.census
  FROM models m LEFT JOIN file_type_names f ON f.file_type = m.file_type;
