-- Brings a schema-6 catalogue to 7: what the views kept recomputing (at 10,000 models and 3 M
-- tensor rows they re-aggregated every tensor, or searched metadata per model), written by the
-- crawl in the model's own transaction (src/crawl/model_rows.cpp).
ALTER TABLE models ADD COLUMN block_count;
ALTER TABLE models ADD COLUMN majority_type_id INTEGER;
ALTER TABLE models ADD COLUMN majority_type_name TEXT;
ALTER TABLE models ADD COLUMN census TEXT;

CREATE TABLE policy_layers (
    model_id    INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    tensor_kind TEXT NOT NULL,
    type_id     INTEGER,
    type_name   TEXT NOT NULL,
    tensors     INTEGER NOT NULL,
    layers      TEXT,
    PRIMARY KEY (model_id, tensor_kind, type_name)
) WITHOUT ROWID;

CREATE INDEX models_name ON models(name);
CREATE INDEX metadata_arrays ON metadata(model_id, key, array_bytes) WHERE array_bytes IS NOT NULL;

-- The crawl's rule fills the new columns and table: every file still there is read again by the
-- next crawl, whatever its identity says; until then they are NULL (and policy_layers empty).
UPDATE files SET reread = 1 WHERE status <> 'gone';
