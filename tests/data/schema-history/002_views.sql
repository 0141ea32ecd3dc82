-- modelcat catalogue, schema version 2: the first views.

-- One row per model: the quant table.
-- bits_per_weight = (file_bytes - header_bytes) * 8 / params, measured.
-- census = 'type:count' pairs by elements descending, ties by type
-- (GGUF: ggml type ids, '12:193 14:33 0:66'; safetensors: dtypes, 'BF16:291').
CREATE VIEW quant_summary AS
SELECT m.model_id,
       m.name,
       m.location,
       m.format,
       m.architecture,
       m.file_type,
       m.file_bytes,
       m.header_bytes,
       m.params,
       CASE WHEN m.params > 0 THEN (m.file_bytes - m.header_bytes) * 8.0 / m.params END AS bits_per_weight,
       m.tensor_count,
       m.kv_count,
       (SELECT group_concat(k, ' ')
          FROM (SELECT coalesce(CAST(c.type_id AS TEXT), c.type_name) || ':' || c.tensors AS k
                  FROM census c
                 WHERE c.model_id = m.model_id
                 ORDER BY c.params DESC, c.type_id, c.type_name)) AS census
  FROM models m;

-- Per model and type: tensors, parameters, measured bytes and rate.
CREATE VIEW type_census AS
SELECT c.model_id, c.type_id, c.type_name, c.tensors, c.params, c.bytes, c.bits_per_weight
  FROM census c;
