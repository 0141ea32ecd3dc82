-- Brings a schema-14 catalogue to 15: the memory terms llama.cpp's allocations are computed from
-- (memory_terms, memory_caches), replacing models' KV cache estimate.
-- The crawl computes the terms: every file is marked for it to read again.
-- One row per catalogued model: whether its architecture is modelled and, when it is, its terms.
CREATE TABLE memory_terms (
    model_id INTEGER PRIMARY KEY REFERENCES models(model_id) ON DELETE CASCADE,
    basis    TEXT NOT NULL CHECK (basis IN ('modelled', 'not_modelled')),
    reason   TEXT,                     -- not_modelled: 'not modelled for ARCH', or what the header lacks; else NULL
    -- The rest is NULL when not modelled.
    ctx_train INTEGER,                 -- <arch>.context_length (0 when absent)
    n_layer   INTEGER,                 -- <arch>.block_count: the repeating layers
    weights_bytes INTEGER,             -- CPU_Mapped on an AVX2 CPU: the mapped span of the weights left in place
    repack_bytes  INTEGER,             -- CPU_REPACK on an AVX2 CPU: the matrices its kernels repack (Q4_0, IQ4_NL, MXFP4, Q4_K)
    layer_weight_bytes_max INTEGER,    -- the largest repeating layer's weights (blk.N.*)
    repeating_weight_bytes INTEGER,    -- all repeating layers' weights
    other_weight_bytes     INTEGER,    -- the weights outside them: embedding, output, norms
    recurrent_bytes INTEGER,           -- recurrent state (conv and SSM), which does not grow with the context
    output_bytes    INTEGER,           -- the output buffer: one row of logits (n_vocab f32)
    whole_blocks    INTEGER,           -- 1 when every K and V row is whole blocks of 32, as a q8_0 or q4_0 cache needs
    -- The compute buffer's terms, bytes per token of the micro-batch (scores: per token and cell).
    logits_per_token INTEGER,          -- logits and two hidden states
    attention_per_token INTEGER,       -- Q, K and V of every head and two hidden states
    scores_per_token_cell INTEGER,     -- the attention scores without flash attention: heads x f32
    layer_per_token INTEGER            -- the larger of the FFN's (dense or the chosen experts') and the SSM's activations
);

-- One row per attention cache llama.cpp creates for a modelled model (none for a recurrent one).
CREATE TABLE memory_caches (
    model_id INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    cache    INTEGER NOT NULL,         -- 0, 1 in llama.cpp's order: the full (or MLA) cache, then the sliding one
    kind     TEXT NOT NULL CHECK (kind IN ('full', 'sliding', 'mla')),
    window   INTEGER NOT NULL,         -- sliding: <arch>.attention.sliding_window, tokens; else 0
    layers   INTEGER NOT NULL,         -- the layers it serves
    k_elements INTEGER NOT NULL,       -- K elements per cell, summed over its layers
    v_elements INTEGER NOT NULL,       -- V elements per cell (0 for MLA, whose V is a view of K)
    v_padded_elements INTEGER NOT NULL,  -- V per cell without flash attention: layers x the widest V row of any cache
    PRIMARY KEY (model_id, cache)
) WITHOUT ROWID;

ALTER TABLE models DROP COLUMN kv_full_bytes_per_1k;
ALTER TABLE models DROP COLUMN kv_swa_bytes_per_1k;
ALTER TABLE models DROP COLUMN kv_swa_layers;
ALTER TABLE models DROP COLUMN sliding_window;

UPDATE files SET reread = 1 WHERE status <> 'gone';
