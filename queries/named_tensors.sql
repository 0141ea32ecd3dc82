-- The type and measured bits/weight of five tensors that quantization policies treat differently (token_embd, output, blk.0 attn_v, ffn_down, attn_q) across models, as a pivot ("12(4.50)"). Params: :pattern (LIKE on name; without %: the names containing it).
-- @param pattern like
-- To pivot other tensors, copy this file and change the five names (each twice). Every cell is one primary-key lookup (file_id, name):
-- in a model's only data file (most models: its size is the model's file_bytes), else the largest cell over its files (data files hold the tensors).
-- Models are walked in the order printed (the index models_file_bytes), so rows stream: the first page at once, whatever the catalogue's size.
WITH cells(file_id, tensor, cell) AS NOT MATERIALIZED (
    SELECT file_id, name, coalesce(type_id, type_name) || printf('(%.2f)', bits_per_weight) FROM tensors)
SELECT m.name,
       CASE WHEN f.size = m.file_bytes THEN (SELECT cell FROM cells WHERE file_id = f.file_id AND tensor = 'token_embd.weight')
            ELSE (SELECT max(cell) FROM files d JOIN cells USING (file_id) WHERE d.model_id = m.model_id AND tensor = 'token_embd.weight') END AS token_embd,
       CASE WHEN f.size = m.file_bytes THEN (SELECT cell FROM cells WHERE file_id = f.file_id AND tensor = 'output.weight')
            ELSE (SELECT max(cell) FROM files d JOIN cells USING (file_id) WHERE d.model_id = m.model_id AND tensor = 'output.weight') END AS output,
       CASE WHEN f.size = m.file_bytes THEN (SELECT cell FROM cells WHERE file_id = f.file_id AND tensor = 'blk.0.attn_v.weight')
            ELSE (SELECT max(cell) FROM files d JOIN cells USING (file_id) WHERE d.model_id = m.model_id AND tensor = 'blk.0.attn_v.weight') END AS blk0_attn_v,
       CASE WHEN f.size = m.file_bytes THEN (SELECT cell FROM cells WHERE file_id = f.file_id AND tensor = 'blk.0.ffn_down.weight')
            ELSE (SELECT max(cell) FROM files d JOIN cells USING (file_id) WHERE d.model_id = m.model_id AND tensor = 'blk.0.ffn_down.weight') END AS blk0_ffn_down,
       CASE WHEN f.size = m.file_bytes THEN (SELECT cell FROM cells WHERE file_id = f.file_id AND tensor = 'blk.0.attn_q.weight')
            ELSE (SELECT max(cell) FROM files d JOIN cells USING (file_id) WHERE d.model_id = m.model_id AND tensor = 'blk.0.attn_q.weight') END AS blk0_attn_q
  FROM models m CROSS JOIN files f ON f.model_id = m.model_id
 WHERE f.role = 'data' AND f.shard = 0 AND m.name LIKE coalesce(:pattern, '%') AND m.tensor_count > 0
 ORDER BY m.file_bytes, m.model_id;
