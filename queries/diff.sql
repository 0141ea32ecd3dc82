-- Two models side by side: every tensor whose type, shape or size differs, and tensors only in one. Params: :a, :b (id, name or location).
-- @param a model required
-- @param b model required
-- modelcat binds :a and :b to the model_ids the references resolve to; in sqlite3: .param set :a 3
WITH a AS MATERIALIZED (SELECT name, layer, dims, type_name, bytes FROM tensors
            WHERE model_id = :a),
     b AS MATERIALIZED (SELECT name, layer, dims, type_name, bytes FROM tensors
            WHERE model_id = :b)
SELECT coalesce(a.name, b.name) AS tensor,
       CASE WHEN a.name IS NULL THEN 'only in b'
            WHEN b.name IS NULL THEN 'only in a'
            ELSE trim(iif(a.type_name <> b.type_name, 'type ', '') || iif(a.dims <> b.dims, 'shape ', '') ||
                      iif(a.bytes <> b.bytes, 'size', ''))
       END AS change,
       a.type_name AS a_type, b.type_name AS b_type, a.dims AS a_dims, b.dims AS b_dims,
       a.bytes AS a_bytes, b.bytes AS b_bytes
  FROM a FULL OUTER JOIN b ON a.name = b.name
 WHERE a.name IS NULL OR b.name IS NULL OR a.type_name <> b.type_name OR a.dims <> b.dims OR a.bytes <> b.bytes
 ORDER BY change, coalesce(a.layer, b.layer), tensor;
