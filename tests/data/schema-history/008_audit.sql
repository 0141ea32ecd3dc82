-- modelcat catalogue: conversion audits (`modelcat audit GGUF SOURCE`), the values of a GGUF
-- compared tensor by tensor with its source checkpoint's.

-- One audit run: what was compared and the totals. The per-tensor rows are in audit_tensors.
CREATE TABLE audits (
    audit_id         INTEGER PRIMARY KEY,
    gguf_location    TEXT NOT NULL,     -- the GGUF as given on the command line
    source_location  TEXT NOT NULL,     -- the checkpoint folder, index.json or .safetensors as given
    gguf_model_id    INTEGER REFERENCES models(model_id) ON DELETE SET NULL,  -- the GGUF's model when it is catalogued
    source_model_id  INTEGER REFERENCES models(model_id) ON DELETE SET NULL,  -- the checkpoint's model when catalogued
    started_at       TEXT NOT NULL,     -- UTC, ISO 8601
    finished_at      TEXT NOT NULL,     -- UTC, ISO 8601
    verdict          TEXT NOT NULL CHECK (verdict IN ('pass', 'fail')),  -- pass: every source tensor accounted for, every compared tensor passes
    source_tensors   INTEGER NOT NULL,  -- tensors in the checkpoint
    matched          INTEGER NOT NULL,  -- GGUF tensors paired with a source tensor (a tied output.weight counts)
    exact            INTEGER NOT NULL,  -- pairs equal bit for bit (after exact widening or round-to-nearest-even narrowing)
    within_tolerance INTEGER NOT NULL,  -- quantized pairs under their type's NMSE ceiling
    mismatched       INTEGER NOT NULL,  -- pairs that fail: values, shape, or not comparable
    unmatched_source INTEGER NOT NULL,  -- source tensors without a GGUF counterpart
    unmatched_gguf   INTEGER NOT NULL,  -- GGUF tensors without a source that are not known generated tensors
    generated_ok     INTEGER NOT NULL,  -- generated tensors (rope_freqs) matching config.json
    generated_bad    INTEGER NOT NULL,  -- generated tensors that do not match
    sample_rows      INTEGER NOT NULL,  -- rows compared per tensor; 0 = every row
    bytes_read       INTEGER NOT NULL,  -- bytes read from both sides, headers included
    seconds          REAL NOT NULL      -- wall time of the audit
);

-- One row per tensor of either side: a pair, a generated tensor, or an unmatched one.
CREATE TABLE audit_tensors (
    audit_id           INTEGER NOT NULL REFERENCES audits(audit_id) ON DELETE CASCADE,
    gguf_tensor        TEXT,             -- NULL for an unmatched source tensor
    source_tensor      TEXT,             -- NULL for generated and unmatched GGUF tensors
    gguf_type          TEXT,             -- ggml type name (BF16, Q4_K ...)
    source_dtype       TEXT,             -- safetensors dtype (BF16 ...)
    transform          TEXT,             -- what was applied to the source, comma-separated: permute_q, permute_k, tied, bf16->f32, bf16->q4_k ...
    verdict            TEXT NOT NULL CHECK (verdict IN ('exact', 'within_tolerance', 'mismatch', 'generated_ok',
                                 'generated_mismatch', 'generated_unchecked', 'unmatched_source', 'unmatched_gguf', 'not_compared')),
    elements           INTEGER NOT NULL, -- elements in the tensor
    compared           INTEGER NOT NULL, -- elements compared (fewer in sample mode; 0 when not comparable)
    mismatches         INTEGER NOT NULL, -- compared elements not bit-identical to the expected value
    first_mismatch_row INTEGER,          -- row of the source tensor of the first differing element (quantized: of the largest error) when it fails
    first_mismatch_col INTEGER,          -- its column (for a 1-D tensor: its index)
    max_abs_error      REAL,             -- largest |GGUF - source|
    rmse               REAL,             -- root mean square error
    nmse               REAL,             -- error energy / source signal energy
    cosine             REAL              -- cosine similarity of the two tensors
);
CREATE INDEX audit_tensors_audit ON audit_tensors(audit_id);
