-- Which llama-quantize settings made each quant (docs/recipes.md): stock, stock+overrides (the options as typed), custom, relabelled or unknown, and how many tensors match the replay of its declared type at the llama.cpp revision named. Params: :pattern (LIKE on name; without %: the names containing it), :kind (LIKE on kind, default model).
-- @param pattern like
-- @table name location declared_type recipe overrides matching tensors
SELECT m.model_id, m.name, m.location, f.name AS declared_type, r.recipe, r.overrides, r.matching, r.tensors, r.revision,
       q.name AS quantized_as
  FROM recipes r
  JOIN models m USING (model_id)
  LEFT JOIN file_type_names f ON f.file_type = m.file_type
  LEFT JOIN file_type_names q ON q.file_type = r.quantized_as
 WHERE m.name LIKE coalesce(:pattern, '%') AND m.kind LIKE coalesce(:kind, 'model')
 ORDER BY m.name, m.model_id;
