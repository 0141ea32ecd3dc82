-- modelcat catalogue, schema version 6: metadata values stored exactly as the file holds them.
--
-- Before, metadata.value was declared ANY in a table that is not STRICT, which gives it NUMERIC
-- affinity: the string "0123" was stored as the integer 123, "3.10" as 3.1, a float 1.0 as the
-- integer 1 (and -0.0 as 0), a uint64 above 2^63-1 as an inexact REAL. The table is rebuilt with
-- a value column that has no declared type (BLOB affinity: SQLite converts nothing), rather than
-- as a STRICT table with ANY, so that any SQLite 3 can still open the catalogue (STRICT needs 3.37).
--
-- How values are stored (value_type says which GGUF type the file has):
--   string                            TEXT, whatever it looks like ("0123", "1e5", " 42", "")
--   uint8..int64, uint64 <= 2^63-1    INTEGER
--   uint64 above 2^63-1               TEXT: its decimal digits ('18446744073709551615')
--   float32, float64                  REAL (float32 widened exactly; -0.0 keeps its sign, ±infinity is
--                                     SQLite's Inf/-Inf); NaN is the TEXT 'NaN' (SQLite has no NaN: it would store NULL)
--   bool                              INTEGER 0 or 1
--   array                             TEXT, the JSON of the values when array_length <= 64, else NULL
-- safetensors __metadata__ values are strings; config.json values take the JSON type
-- (string, int64, uint64, float64, bool, array).

-- A file whose values an older modelcat stored through the NUMERIC affinity, with at least one
-- value in the wrong storage class for its type, is re-read by the next crawl (its stored
-- identity is not trusted), instead of being kept as unchanged.
ALTER TABLE files ADD COLUMN reread INTEGER NOT NULL DEFAULT 0;  -- 1: a value was changed by schema <= 5's affinity; the next crawl reads the file again

-- Copy out, drop, create, copy back: renaming a new table into place would fail while
-- views (same_file_type_different_policy, or a user's own) refer to `metadata`.
CREATE TEMP TABLE metadata_before (model_id, file_id, key, value_type, value, array_type, array_length,
                                   array_bytes, array_hash, offset);
INSERT INTO temp.metadata_before SELECT model_id, file_id, key, value_type, value, array_type, array_length,
                                        array_bytes, array_hash, offset FROM main.metadata;
DROP TABLE main.metadata;

-- Metadata: GGUF key/values, safetensors __metadata__ strings, config.json values.
CREATE TABLE main.metadata (
    model_id     INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    file_id      INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    value_type   TEXT NOT NULL,          -- uint8 int8 uint16 int16 uint32 int32 float32 bool string array uint64 int64 float64
    value,                               -- no declared type, so stored as bound: see the table above
    array_type   TEXT,                   -- element type of an array
    array_length INTEGER,                -- element count of an array
    array_bytes  INTEGER,                -- encoded size of the array's elements in the file
    array_hash   TEXT,                   -- 64-bit content hash (hex) of the array's canonical encoding: equal hash = identical content
    offset       INTEGER NOT NULL,       -- byte offset of the key in the file
    PRIMARY KEY (file_id, key)
) WITHOUT ROWID;
CREATE INDEX main.metadata_key ON metadata(key);

INSERT INTO main.metadata SELECT * FROM temp.metadata_before;
DROP TABLE temp.metadata_before;

-- The storage class each type has when stored exactly; any other was made by the old affinity.
UPDATE files SET reread = 1
 WHERE file_id IN (SELECT file_id FROM metadata
                    WHERE CASE value_type
                              WHEN 'string' THEN typeof(value) <> 'text'
                              WHEN 'array' THEN typeof(value) NOT IN ('text', 'null')
                              WHEN 'float32' THEN typeof(value) <> 'real'
                              WHEN 'float64' THEN typeof(value) <> 'real'
                              ELSE typeof(value) <> 'integer' END);
