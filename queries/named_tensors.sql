-- The type and measured bits/weight of five tensors that quantization policies treat differently (token_embd, output, blk.0 attn_v, ffn_down, attn_q) across models, as a pivot ("12(4.50)"). Params: :pattern.
-- To pivot other tensors, copy this file and change the five names.
SELECT m.name,
       max(CASE WHEN t.name = 'token_embd.weight' THEN cell END) AS token_embd,
       max(CASE WHEN t.name = 'output.weight' THEN cell END) AS output,
       max(CASE WHEN t.name = 'blk.0.attn_v.weight' THEN cell END) AS blk0_attn_v,
       max(CASE WHEN t.name = 'blk.0.ffn_down.weight' THEN cell END) AS blk0_ffn_down,
       max(CASE WHEN t.name = 'blk.0.attn_q.weight' THEN cell END) AS blk0_attn_q
  FROM models m
  JOIN (SELECT model_id, name,
               coalesce(CAST(type_id AS TEXT), type_name) || '(' || printf('%.2f', bits_per_weight) || ')' AS cell
          FROM tensors) t USING (model_id)
 WHERE m.name LIKE coalesce(:pattern, '%')
 GROUP BY m.model_id
 ORDER BY m.file_bytes;
