-- modelcat catalogue: the reference rows, what this build knows of llama.cpp's names. Written by
-- every writable open (a new catalogue, a migrated one, and each crawl's), so that a later build's
-- knowledge reaches an older catalogue without a migration. Rows are written over, never deleted
-- (those a newer build added stay). ggml_types' rows come from the binary's type table
-- (src/format/ggml_types.def), written beside these.

-- general.file_type ids (llama.cpp's llama_ftype): the name without LLAMA_FTYPE_, and whether llama.cpp dropped it.
INSERT OR REPLACE INTO file_type_names (file_type, name, removed) VALUES
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

-- Checkpoint tensor kinds -> GGUF kinds: the Llama layout, which mistral and qwen2 share, and
-- qwen2's attention biases.
WITH llama(source_kind, gguf_kind) AS (VALUES
    ('model.embed_tokens.weight', 'token_embd.weight'), ('lm_head.weight', 'output.weight'),
    ('model.norm.weight', 'output_norm.weight'),
    ('self_attn.q_proj.weight', 'attn_q.weight'), ('self_attn.k_proj.weight', 'attn_k.weight'),
    ('self_attn.v_proj.weight', 'attn_v.weight'), ('self_attn.o_proj.weight', 'attn_output.weight'),
    ('mlp.gate_proj.weight', 'ffn_gate.weight'), ('mlp.up_proj.weight', 'ffn_up.weight'),
    ('mlp.down_proj.weight', 'ffn_down.weight'),
    ('input_layernorm.weight', 'attn_norm.weight'), ('post_attention_layernorm.weight', 'ffn_norm.weight'))
INSERT OR REPLACE INTO tensor_name_map SELECT a.architecture, l.source_kind, l.gguf_kind
  FROM llama l, (SELECT 'llama' AS architecture UNION ALL SELECT 'mistral' UNION ALL SELECT 'qwen2') a;
INSERT OR REPLACE INTO tensor_name_map VALUES
    ('qwen2', 'self_attn.q_proj.bias', 'attn_q.bias'), ('qwen2', 'self_attn.k_proj.bias', 'attn_k.bias'),
    ('qwen2', 'self_attn.v_proj.bias', 'attn_v.bias');

