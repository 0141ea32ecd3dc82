-- Brings a schema-8 catalogue to 9: would ggml's own GGUF reader read each GGUF file?
ALTER TABLE files ADD COLUMN ggml_refusals INTEGER;

CREATE TABLE ggml_refusals (
    file_id  INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    model_id INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    "check"  TEXT NOT NULL,
    reason   TEXT NOT NULL,
    PRIMARY KEY (file_id, seq)
);
CREATE INDEX ggml_refusals_model ON ggml_refusals(model_id);

-- The crawl fills the column and table: every file still there is read again by the next crawl.
UPDATE files SET reread = 1 WHERE status <> 'gone';
