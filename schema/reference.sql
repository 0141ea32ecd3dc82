-- modelcat catalogue: the reference rows, what this build knows of llama.cpp's names. Written by
-- every writable open (a new catalogue, a migrated one, and each crawl's), so that a later build's
-- knowledge reaches an older catalogue without a migration. Rows are written over, never deleted
-- (those a newer build added stay). ggml_types' and file_type_names' rows come from the binary's
-- tables (src/model/ggml_types.def, src/model/file_types.def), written beside these.

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
