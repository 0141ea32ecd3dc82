-- modelcat catalogue: would ggml's own GGUF reader read each GGUF file?
-- The checks follow ggml/src/gguf.cpp (gguf_init_from_reader) at ggml-org/ggml
-- d99724f2b141fed9e1a9f402213506c081433465; README "Security" lists them.
ALTER TABLE files ADD COLUMN ggml_refusals INTEGER;  -- GGUF data files: how many reasons ggml would refuse it for (0 = ggml reads it); NULL for other files and for files catalogued before this check

CREATE TABLE ggml_refusals (
    file_id  INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    model_id INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,  -- order of the reason within the file (ggml's order of checks)
    "check"  TEXT NOT NULL,     -- version, byte_order, duplicate_key, nested_array, name_length, duplicate_name, element_count, type_id, row_blocks, offset, data_size
    reason   TEXT NOT NULL,     -- what ggml refuses, with the key or tensor and the values
    PRIMARY KEY (file_id, seq)
);
CREATE INDEX ggml_refusals_model ON ggml_refusals(model_id);

-- One row per GGUF model: readable 1 when ggml reads all its data files, 0 when
-- it refuses one, NULL when a file was catalogued before this check (re-crawl
-- with --force); reasons: every refusal, one per line, file order.
CREATE VIEW ggml_compat AS
SELECT m.model_id, m.name, m.location,
       CASE WHEN count(*) > count(f.ggml_refusals) THEN NULL
            WHEN sum(f.ggml_refusals) = 0 THEN 1 ELSE 0 END AS readable,
       (SELECT group_concat(reason, char(10))
          FROM (SELECT r.reason FROM ggml_refusals r JOIN files rf USING (file_id)
                 WHERE r.model_id = m.model_id ORDER BY rf.shard, r.seq)) AS reasons
  FROM models m JOIN files f ON f.model_id = m.model_id AND f.role = 'data'
 WHERE m.format = 'gguf'
 GROUP BY m.model_id;
