-- Brings a schema-15 catalogue to 16: the metadata half of a conversion audit, each GGUF key held
-- against its source in the checkpoint's files (no rows to move: older audits have none).
CREATE TABLE audit_metadata (
    audit_id     INTEGER NOT NULL REFERENCES audits(audit_id) ON DELETE CASCADE,
    key          TEXT NOT NULL,     -- the GGUF key (llama.context_length), or rope_freqs.weight for what llama3 rope scaling became
    source_path  TEXT NOT NULL,     -- file:JSON path of the source value (config.json:rope_scaling.factor, tokenizer.json:model.merges)
    gguf_value   TEXT,              -- as shown: strings JSON-quoted, long values shortened (length given); NULL when the GGUF has none
    source_value TEXT,              -- the value the converter would have written, shown the same way; NULL when not known
    verdict      TEXT NOT NULL CHECK (verdict IN ('equal', 'converted', 'differs', 'missing', 'not_checked')),
    effect       TEXT NOT NULL CHECK (effect IN ('ok', 'warn', 'fail')),  -- fail: differs/missing on an EOS id, the chat template, rope scaling or the context length
    note         TEXT               -- the transformation (f64->f32), the first difference, or why not checked
);
CREATE INDEX audit_metadata_audit ON audit_metadata(audit_id);
