-- Brings a schema-5 catalogue to 6: metadata values stored exactly as the file holds them.
-- Before, metadata.value was declared ANY in a table that is not STRICT, which gives it NUMERIC
-- affinity: the string "0123" was stored as the integer 123, "3.10" as 3.1, a float 1.0 as the
-- integer 1 (and -0.0 as 0), a uint64 above 2^63-1 as an inexact REAL. The table is rebuilt with
-- a value column that has no declared type (current.sql says how each type is stored), and a file
-- with a value in the wrong storage class for its type is marked for the next crawl to read again
-- (its stored identity is not trusted), instead of being kept as unchanged.
ALTER TABLE files ADD COLUMN reread INTEGER NOT NULL DEFAULT 0;

-- Copy out, drop, create, copy back (the migrator has set the views aside, so nothing reads it meanwhile).
CREATE TEMP TABLE metadata_before (model_id, file_id, key, value_type, value, array_type, array_length,
                                   array_bytes, array_hash, offset);
INSERT INTO temp.metadata_before SELECT model_id, file_id, key, value_type, value, array_type, array_length,
                                        array_bytes, array_hash, offset FROM main.metadata;
DROP TABLE main.metadata;
CREATE TABLE main.metadata (
    model_id     INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    file_id      INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    value_type   TEXT NOT NULL,
    value,
    array_type   TEXT,
    array_length INTEGER,
    array_bytes  INTEGER,
    array_hash   TEXT,
    offset       INTEGER NOT NULL,
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
