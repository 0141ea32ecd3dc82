-- Brings a schema-13 catalogue to 14: which llama-quantize settings made each GGUF model. The
-- crawl derives the rows from the headers (no SQL copy of the rule): every file is read again.
CREATE TABLE recipes (
    model_id     INTEGER PRIMARY KEY REFERENCES models(model_id) ON DELETE CASCADE,
    recipe       TEXT NOT NULL CHECK (recipe IN ('stock', 'stock+overrides', 'custom', 'relabelled', 'unknown')),
    quantized_as INTEGER,           -- the file type llama-quantize was given (file_type_names); NULL when unknown
    overrides    TEXT NOT NULL,     -- the options as typed, space-separated ('' for stock); relabelled adds --override-kv
    matching     INTEGER NOT NULL,  -- tensors whose type the declared type's stock replay predicts
    tensors      INTEGER NOT NULL,  -- tensors over all the model's data files
    revision     TEXT NOT NULL,     -- the llama.cpp commit replayed (12 hex digits), "(file order)" for a pre-2024-11 tensor order
    imatrix      INTEGER NOT NULL,  -- 1 when the file has quantize.imatrix.* keys (made with an importance matrix)
    differences  TEXT NOT NULL,     -- custom: JSON array of per-kind differences ("ffn_down: Q3_K on 32 of 32 layers (stock Q2_K: 0)"); else []
    why          TEXT NOT NULL,     -- the tensor kinds whose types differ from quantized_as's stock policy, then how made
    note         TEXT NOT NULL      -- unknown: why; else what the reading assumed, or ''
);

UPDATE files SET reread = 1 WHERE status <> 'gone';
