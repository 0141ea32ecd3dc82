-- The type and measured bits/weight of the seeds' five named tensors across models, as a pivot ("12(4.50)"). Params: :pattern.
-- To pivot other tensors, copy this file and change the names (the IN list matches the tensors_named index, which makes this fast).
SELECT m.name,
       max(CASE WHEN t.name = 'token_embd.weight' THEN cell END) AS token_embd,
       max(CASE WHEN t.name = 'output.weight' THEN cell END) AS output,
       max(CASE WHEN t.name = 'blk.0.attn_v.weight' THEN cell END) AS blk0_attn_v,
       max(CASE WHEN t.name = 'blk.0.ffn_down.weight' THEN cell END) AS blk0_ffn_down,
       max(CASE WHEN t.name = 'blk.0.attn_q.weight' THEN cell END) AS blk0_attn_q
  FROM models m
  LEFT JOIN (SELECT model_id, name,
                    coalesce(CAST(type_id AS TEXT), type_name) || '(' || printf('%.2f', bits_per_weight) || ')' AS cell
               FROM tensors
              WHERE name IN ('token_embd.weight', 'output.weight', 'blk.0.attn_v.weight', 'blk.0.ffn_down.weight',
                             'blk.0.attn_q.weight')) t ON t.model_id = m.model_id
 WHERE m.name LIKE coalesce(:pattern, '%') AND m.tensor_count > 0
 GROUP BY m.model_id
 ORDER BY m.file_bytes;
