-- modelcat catalogue, schema version 7: what the views kept recomputing, written at crawl time.
-- At 10,000 models and 3 M tensor rows the views of versions 2-3 re-aggregated every tensor
-- (policy_map, policy_deviations) or searched metadata per model (same_file_type_different_policy).
-- The crawl now writes these summaries in the model's own transaction (src/catalog/summaries.cpp);
-- this migration fills them for models catalogued before. The views keep their names and columns.

-- Per model, precomputed from its census and metadata rows.
ALTER TABLE models ADD COLUMN block_count;          -- metadata '<architecture>.block_count' as stored (lowest file_id); NULL when absent (checkpoints)
ALTER TABLE models ADD COLUMN majority_type_id INTEGER;  -- census type held by the most tensors, F32 excluded (ties: more params, lower type_id, then type_name); NULL if none
ALTER TABLE models ADD COLUMN majority_type_name TEXT;   -- its type_name (BF16 for checkpoints, whose type_id is NULL)
ALTER TABLE models ADD COLUMN census TEXT;          -- 'type:count' pairs by params descending, ties by type_id then type_name (quant_summary.census)

-- Per model, tensor kind and type: the policy_map view, materialised.
CREATE TABLE policy_layers (
    model_id    INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    tensor_kind TEXT NOT NULL,     -- tensors.kind
    type_id     INTEGER,           -- ggml type id; NULL for safetensors
    type_name   TEXT NOT NULL,
    tensors     INTEGER NOT NULL,  -- tensors of this kind and type
    layers      TEXT,              -- their layers, ascending, comma-separated without spaces; NULL when none has a layer
    PRIMARY KEY (model_id, tensor_kind, type_name)
) WITHOUT ROWID;

-- Model references by name (model_refs, and the CLI resolving `-p model=NAME`).
CREATE INDEX models_name ON models(name);
-- Array metadata (tokenizer arrays and the like, a few per file), for header_budget.
CREATE INDEX metadata_arrays ON metadata(model_id, key, array_bytes) WHERE array_bytes IS NOT NULL;

-- Fill the new columns and table for models catalogued by an older modelcat.
INSERT INTO policy_layers (model_id, tensor_kind, type_id, type_name, tensors, layers)
SELECT model_id, kind, type_id, type_name, n, layers
  FROM (SELECT model_id, kind, type_id, type_name, count(*) OVER w AS n, group_concat(layer, ',') OVER w AS layers,
               row_number() OVER w AS i
          FROM tensors
        WINDOW w AS (PARTITION BY model_id, kind, type_name ORDER BY layer
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
 WHERE i = 1;

-- CROSS JOIN keeps files outer: through metadata_key every lookup would visit every model's row.
UPDATE models SET
    block_count = (SELECT md.value FROM files f CROSS JOIN metadata md ON md.file_id = f.file_id
                    WHERE f.model_id = models.model_id AND md.key = models.architecture || '.block_count'
                    ORDER BY md.file_id LIMIT 1),
    (majority_type_id, majority_type_name) =
        (SELECT c.type_id, c.type_name FROM census c
          WHERE c.model_id = models.model_id AND c.type_name <> 'F32'
          ORDER BY c.tensors DESC, c.params DESC, c.type_id, c.type_name LIMIT 1),
    census = (SELECT group_concat(k, ' ')
                FROM (SELECT coalesce(CAST(c.type_id AS TEXT), c.type_name) || ':' || c.tensors AS k
                        FROM census c WHERE c.model_id = models.model_id
                       ORDER BY c.params DESC, c.type_id, c.type_name));

-- The views, reading the precomputed rows (same names, same columns).
DROP VIEW policy_deviations;
DROP VIEW policy_map;
DROP VIEW model_majority_type;
DROP VIEW same_file_type_different_policy;
DROP VIEW quant_summary;

-- One row per model: the quant table (census precomputed, see models.census).
CREATE VIEW quant_summary AS
SELECT m.model_id, m.name, m.location, m.format, m.architecture, m.file_type, m.file_bytes, m.header_bytes, m.params,
       CASE WHEN m.params > 0 THEN (m.file_bytes - m.header_bytes) * 8.0 / m.params END AS bits_per_weight,
       m.tensor_count, m.kv_count, m.census
  FROM models m;

-- Per model, tensor kind and type: how many tensors and on which layers (see policy_layers).
CREATE VIEW policy_map AS
SELECT model_id, tensor_kind, type_id, type_name, tensors, layers FROM policy_layers;

-- Each model's majority type: held by the most tensors, F32 excluded (ties: more parameters, lower id).
CREATE VIEW model_majority_type AS
SELECT model_id, majority_type_id AS type_id, majority_type_name AS type_name
  FROM models WHERE majority_type_name IS NOT NULL;

-- The tensors whose type is not the model's majority type (F32 excluded), by type and kind.
CREATE VIEW policy_deviations AS
SELECT p.model_id, m.name, m.majority_type_name AS majority_type, p.type_id, p.type_name, p.tensor_kind, p.layers, p.tensors
  FROM policy_layers p
  JOIN models m USING (model_id)
 WHERE p.type_name <> m.majority_type_name AND p.type_name <> 'F32';

-- Models of one architecture and block count that declare the same general.file_type but quantize differently.
CREATE VIEW same_file_type_different_policy AS
SELECT g.architecture, g.file_type, f.name AS file_type_name,
       count(*) AS models, count(DISTINCT g.policy_hash) AS policies,
       group_concat(g.model_id, ',') AS model_ids, group_concat(g.name, ',') AS names
  FROM (SELECT * FROM models WHERE file_type IS NOT NULL ORDER BY model_id) g
  LEFT JOIN file_type_names f ON f.file_type = g.file_type
 GROUP BY g.architecture, g.block_count, g.file_type
HAVING count(DISTINCT g.policy_hash) > 1;
