-- A GGUF beside its source checkpoint: every byte of difference by cause, then the total. Params: :gguf, :source (id, name or location).
-- @param gguf model required
-- @param source model required
-- modelcat binds :gguf and :source to the model_ids the references resolve to; in sqlite3: .param set :gguf 3
-- Tensors match by mapped name (tensor_name_map), then by shape (dims sorted) among the rest.
-- Each step is MATERIALIZED: the two models' tensors are read once, by model_id, whatever the steps reuse.
WITH ids AS MATERIALIZED (SELECT :gguf AS g_id, :source AS s_id),
     g_model AS MATERIALIZED (SELECT * FROM models WHERE model_id = (SELECT g_id FROM ids)),
     s_model AS MATERIALIZED (SELECT * FROM models WHERE model_id = (SELECT s_id FROM ids)),
     shape AS MATERIALIZED (
        SELECT t.model_id, t.name, t.layer, t.kind, t.n_elements, t.type_name, t.bytes,
               (SELECT group_concat(value, 'x') FROM (SELECT value FROM json_each(t.dims) ORDER BY value)) AS shape_key
          FROM tensors t WHERE t.model_id IN (SELECT g_id FROM ids UNION ALL SELECT s_id FROM ids)),
     g AS MATERIALIZED (SELECT * FROM shape WHERE model_id = (SELECT g_id FROM ids)),
     s AS MATERIALIZED (
        SELECT sh.*, coalesce(iif(sh.layer IS NULL, nm.gguf_kind, 'blk.' || sh.layer || '.' || nm.gguf_kind), sh.name) AS mapped
          FROM shape sh
          LEFT JOIN tensor_name_map nm ON nm.architecture = (SELECT architecture FROM g_model) AND nm.source_kind = sh.kind
         WHERE sh.model_id = (SELECT s_id FROM ids)),
     by_name AS (SELECT g.name AS g_name, s.name AS s_name, 0 AS by_shape FROM g JOIN s ON s.mapped = g.name),
     g_rest AS (SELECT g.*, row_number() OVER (PARTITION BY shape_key ORDER BY name) AS n FROM g
                 WHERE name NOT IN (SELECT g_name FROM by_name)),
     s_rest AS (SELECT s.*, row_number() OVER (PARTITION BY shape_key ORDER BY name) AS n FROM s
                 WHERE name NOT IN (SELECT s_name FROM by_name)),
     by_shape AS (SELECT g_rest.name AS g_name, s_rest.name AS s_name, 1 AS by_shape
                    FROM g_rest JOIN s_rest ON s_rest.shape_key = g_rest.shape_key AND s_rest.n = g_rest.n),
     pairs AS (SELECT * FROM by_name UNION ALL SELECT * FROM by_shape),
     causes AS (
        SELECT 1 AS k, iif(g.type_name = s.type_name, 'unchanged ' || g.type_name, 'dtype ' || s.type_name || ' -> ' || g.type_name)
                       || iif(p.by_shape, ' (matched by shape)', '') AS cause,
               count(*) AS tensors, sum(g.n_elements) AS params, sum(g.bytes - s.bytes) AS bytes
          FROM pairs p JOIN g ON g.name = p.g_name JOIN s ON s.name = p.s_name
         GROUP BY g.type_name, s.type_name, p.by_shape
        UNION ALL
        SELECT 2, 'only in gguf: ' || name, 1, n_elements, bytes FROM g WHERE name NOT IN (SELECT g_name FROM pairs)
        UNION ALL
        SELECT 3, 'only in source: ' || name, 1, -n_elements, -bytes FROM s WHERE name NOT IN (SELECT s_name FROM pairs)
        UNION ALL
        SELECT 4, 'header/metadata', NULL, NULL, (SELECT header_bytes FROM g_model) - (SELECT header_bytes FROM s_model))
SELECT cause, tensors, params, bytes FROM (
    SELECT k, cause, tensors, params, bytes FROM causes
    UNION ALL
    SELECT 5, 'total', g_model.tensor_count - s_model.tensor_count, g_model.params - s_model.params,
           g_model.file_bytes - s_model.file_bytes
      FROM g_model, s_model)
 ORDER BY k, cause;
