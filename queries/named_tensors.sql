-- The type and measured bits/weight of five tensors that quantization policies treat differently (token_embd, output, blk.0 attn_v, ffn_down, attn_q) across models, as a pivot ("12(4.50)"). Params: :pattern.
-- To pivot other tensors, copy this file and change the five names (in the IN list too: each model's data files are searched by primary key, file_id and name).
SELECT name,
       max(CASE WHEN tensor = 'token_embd.weight' THEN cell END) AS token_embd,
       max(CASE WHEN tensor = 'output.weight' THEN cell END) AS output,
       max(CASE WHEN tensor = 'blk.0.attn_v.weight' THEN cell END) AS blk0_attn_v,
       max(CASE WHEN tensor = 'blk.0.ffn_down.weight' THEN cell END) AS blk0_ffn_down,
       max(CASE WHEN tensor = 'blk.0.attn_q.weight' THEN cell END) AS blk0_attn_q
  FROM (SELECT m.model_id, m.name, m.file_bytes, t.name AS tensor,
               coalesce(CAST(t.type_id AS TEXT), t.type_name) || '(' || printf('%.2f', t.bits_per_weight) || ')' AS cell
          FROM models m
          JOIN files f ON f.model_id = m.model_id AND f.role = 'data'
          LEFT JOIN tensors t ON t.file_id = f.file_id
               AND t.name IN ('token_embd.weight', 'output.weight', 'blk.0.attn_v.weight', 'blk.0.ffn_down.weight',
                              'blk.0.attn_q.weight')
         WHERE m.name LIKE coalesce(:pattern, '%') AND m.tensor_count > 0)
 GROUP BY model_id
 ORDER BY file_bytes;
