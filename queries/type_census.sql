-- Tensors, parameters, measured bytes and bits per weight per type, for each model. Params: :pattern (LIKE on name; without %: the names containing it).
-- @param pattern like
-- Models in name order (models_name), each one's few rows sorted: the rows stream, the first at once.
SELECT m.name, c.type_id, c.type_name, c.tensors, c.params, c.bytes, round(c.bits_per_weight, 4) AS bits_per_weight
  FROM models m CROSS JOIN type_census c USING (model_id)
 WHERE m.name LIKE coalesce(:pattern, '%')
 ORDER BY m.name, c.params DESC, c.type_id;
