-- modelcat catalogue, schema version 3: quant policies, reconciliation data and the report views.

-- general.file_type (llama.cpp's llama_ftype) id -> name; `removed` ids may still appear in old files.
CREATE TABLE file_type_names (
    file_type INTEGER PRIMARY KEY,
    name      TEXT NOT NULL,           -- llama_ftype without the LLAMA_FTYPE_ prefix
    removed   INTEGER NOT NULL DEFAULT 0  -- 1 when llama.cpp no longer writes it
);
INSERT INTO file_type_names (file_type, name, removed) VALUES
    (0, 'ALL_F32', 0), (1, 'MOSTLY_F16', 0), (2, 'MOSTLY_Q4_0', 0), (3, 'MOSTLY_Q4_1', 0),
    (4, 'MOSTLY_Q4_1_SOME_F16', 1), (5, 'MOSTLY_Q4_2', 1), (6, 'MOSTLY_Q4_3', 1), (7, 'MOSTLY_Q8_0', 0),
    (8, 'MOSTLY_Q5_0', 0), (9, 'MOSTLY_Q5_1', 0), (10, 'MOSTLY_Q2_K', 0), (11, 'MOSTLY_Q3_K_S', 0),
    (12, 'MOSTLY_Q3_K_M', 0), (13, 'MOSTLY_Q3_K_L', 0), (14, 'MOSTLY_Q4_K_S', 0), (15, 'MOSTLY_Q4_K_M', 0),
    (16, 'MOSTLY_Q5_K_S', 0), (17, 'MOSTLY_Q5_K_M', 0), (18, 'MOSTLY_Q6_K', 0), (19, 'MOSTLY_IQ2_XXS', 0),
    (20, 'MOSTLY_IQ2_XS', 0), (21, 'MOSTLY_Q2_K_S', 0), (22, 'MOSTLY_IQ3_XS', 0), (23, 'MOSTLY_IQ3_XXS', 0),
    (24, 'MOSTLY_IQ1_S', 0), (25, 'MOSTLY_IQ4_NL', 0), (26, 'MOSTLY_IQ3_S', 0), (27, 'MOSTLY_IQ3_M', 0),
    (28, 'MOSTLY_IQ2_S', 0), (29, 'MOSTLY_IQ2_M', 0), (30, 'MOSTLY_IQ4_XS', 0), (31, 'MOSTLY_IQ1_M', 0),
    (32, 'MOSTLY_BF16', 0), (33, 'MOSTLY_Q4_0_4_4', 1), (34, 'MOSTLY_Q4_0_4_8', 1), (35, 'MOSTLY_Q4_0_8_8', 1),
    (36, 'MOSTLY_TQ1_0', 0), (37, 'MOSTLY_TQ2_0', 0), (38, 'MOSTLY_MXFP4_MOE', 0), (39, 'MOSTLY_NVFP4', 0),
    (40, 'MOSTLY_Q1_0', 0), (41, 'MOSTLY_Q2_0', 0), (1024, 'GUESSED', 0);

-- How a source checkpoint's tensor kinds are named in GGUF, per GGUF architecture:
-- data, not code, so another architecture is more rows. A layered kind maps
-- model.layers.N.<source_kind> to blk.N.<gguf_kind>; others map whole names.
CREATE TABLE tensor_name_map (
    architecture TEXT NOT NULL,        -- general.architecture of the GGUF side
    source_kind  TEXT NOT NULL,        -- tensors.kind on the safetensors side
    gguf_kind    TEXT NOT NULL,        -- tensors.kind on the GGUF side
    PRIMARY KEY (architecture, source_kind)
) WITHOUT ROWID;
WITH llama(source_kind, gguf_kind) AS (VALUES
    ('model.embed_tokens.weight', 'token_embd.weight'), ('lm_head.weight', 'output.weight'),
    ('model.norm.weight', 'output_norm.weight'),
    ('self_attn.q_proj.weight', 'attn_q.weight'), ('self_attn.k_proj.weight', 'attn_k.weight'),
    ('self_attn.v_proj.weight', 'attn_v.weight'), ('self_attn.o_proj.weight', 'attn_output.weight'),
    ('mlp.gate_proj.weight', 'ffn_gate.weight'), ('mlp.up_proj.weight', 'ffn_up.weight'),
    ('mlp.down_proj.weight', 'ffn_down.weight'),
    ('input_layernorm.weight', 'attn_norm.weight'), ('post_attention_layernorm.weight', 'ffn_norm.weight'))
INSERT INTO tensor_name_map SELECT a.architecture, l.source_kind, l.gguf_kind
  FROM llama l, (SELECT 'llama' AS architecture UNION ALL SELECT 'mistral' UNION ALL SELECT 'qwen2') a;
INSERT INTO tensor_name_map VALUES
    ('qwen2', 'self_attn.q_proj.bias', 'attn_q.bias'), ('qwen2', 'self_attn.k_proj.bias', 'attn_k.bias'),
    ('qwen2', 'self_attn.v_proj.bias', 'attn_v.bias');

-- A model named by its model_id, its name or its first file's location (reports take any of these).
CREATE VIEW model_refs AS
SELECT CAST(model_id AS TEXT) AS ref, model_id FROM models
UNION ALL SELECT name, model_id FROM models
UNION ALL SELECT location, model_id FROM models;

-- Per model, tensor kind and type: how many tensors and on which layers
-- (numeric order, no spaces; NULL for tensors without a layer). The layer-by-layer policy.
CREATE VIEW policy_map AS
SELECT t.model_id, t.kind AS tensor_kind, t.type_id, t.type_name, count(*) AS tensors,
       (SELECT group_concat(layer, ',')
          FROM (SELECT t2.layer FROM tensors t2
                 WHERE t2.model_id = t.model_id AND t2.kind = t.kind AND t2.type_name = t.type_name
                   AND t2.layer IS NOT NULL ORDER BY t2.layer)) AS layers
  FROM tensors t
 GROUP BY t.model_id, t.kind, t.type_id, t.type_name;

-- Each model's majority type: held by the most tensors, F32 excluded (ties: more parameters, lower id).
CREATE VIEW model_majority_type AS
SELECT model_id, type_id, type_name
  FROM (SELECT c.model_id, c.type_id, c.type_name,
               row_number() OVER (PARTITION BY c.model_id
                                  ORDER BY c.tensors DESC, c.params DESC, c.type_id, c.type_name) AS rank
          FROM census c WHERE c.type_name <> 'F32')
 WHERE rank = 1;

-- The tensors whose type is not the model's majority type (F32 excluded), by type and kind:
-- what a quant "promoted" (the Llama 3.1 8B lineup: Q4_K_M keeps ffn_down and attn_v at Q6_K on 16 layers).
CREATE VIEW policy_deviations AS
SELECT p.model_id, m.name, mj.type_name AS majority_type, p.type_id, p.type_name, p.tensor_kind, p.layers, p.tensors
  FROM policy_map p
  JOIN models m USING (model_id)
  JOIN model_majority_type mj USING (model_id)
 WHERE p.type_name <> mj.type_name AND p.type_name <> 'F32';

-- Models of one architecture and block count that declare the same general.file_type but
-- quantize differently (the Llama 3.1 8B lineup: Q4_K_M and Q4_K_L are both file_type 15).
CREATE VIEW same_file_type_different_policy AS
SELECT g.architecture, g.file_type, f.name AS file_type_name,
       count(*) AS models, count(DISTINCT g.policy_hash) AS policies,
       group_concat(g.model_id, ',') AS model_ids, group_concat(g.name, ',') AS names
  FROM (SELECT m.*, (SELECT md.value FROM metadata md
                      WHERE md.model_id = m.model_id AND md.key = m.architecture || '.block_count') AS block_count
          FROM models m WHERE m.file_type IS NOT NULL ORDER BY m.model_id) g
  LEFT JOIN file_type_names f ON f.file_type = g.file_type
 GROUP BY g.architecture, g.block_count, g.file_type
HAVING count(DISTINCT g.policy_hash) > 1;

-- Every tensor type seen: its rate from the ggml table and as measured over all models.
CREATE VIEW type_rates AS
SELECT c.type_id, c.type_name, g.bits_per_weight AS table_bits_per_weight,
       CASE WHEN sum(c.params) > 0 THEN sum(c.bytes) * 8.0 / sum(c.params) END AS measured_bits_per_weight,
       sum(c.tensors) AS tensors, count(DISTINCT c.model_id) AS models
  FROM census c LEFT JOIN ggml_types g ON g.type_id = c.type_id
 GROUP BY c.type_id, c.type_name;
