-- Brings a schema-17 catalogue to 18: tensors stored compactly (schema/current.sql, "Tensor
-- descriptors"). Each distinct name and (shape, type) is written once, and every tensor becomes a
-- tensor_rows row referencing them; the view `tensors` reads them as the table did. Likewise each
-- distinct layer list of policy_layers, which becomes policy_rows and a view. Nothing is derived
-- anew: a name's layer and kind, a layout's counts and every size are the stored values.
CREATE TABLE tensor_names (
    name_id INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    layer   INTEGER,                     -- N of blk.N. / model.layers.N.; NULL otherwise
    kind    TEXT NOT NULL                -- the name without its layer prefix (ffn_down.weight)
);
CREATE TABLE tensor_layouts (
    layout_id      INTEGER PRIMARY KEY,
    n_dims         INTEGER NOT NULL,
    dims           TEXT NOT NULL,        -- JSON array in the file's own order (GGUF ne[0] first)
    n_elements     INTEGER NOT NULL,
    type_id        INTEGER,              -- ggml type id (GGUF); NULL for safetensors
    type_name      TEXT NOT NULL,        -- Q4_K, BF16, ...; type_<id> for ids ggml does not define
    expected_bytes INTEGER,              -- from the type table; NULL for unknown types
    bytes          INTEGER NOT NULL,     -- measured: gap to the next tensor (last: to the end of the file); mostly expected_bytes
    UNIQUE (dims, type_name, type_id, expected_bytes, bytes)
);
CREATE TABLE tensor_rows (
    file_id     INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    name_id     INTEGER NOT NULL REFERENCES tensor_names(name_id),
    layout_id   INTEGER NOT NULL REFERENCES tensor_layouts(layout_id),
    offset32    INTEGER NOT NULL,        -- the offset from the data start / 32 when a multiple of 32 (GGUF's default alignment: almost every tensor), else -1 - offset: 4 bytes where the offset takes 6
    info_to_data INTEGER NOT NULL,       -- files.data_start minus the byte offset of the descriptor in the file: 2 bytes where the offset takes 3
    PRIMARY KEY (file_id, name_id)
) WITHOUT ROWID;

INSERT INTO tensor_names (name, layer, kind) SELECT name, min(layer), min(kind) FROM tensors GROUP BY name ORDER BY name;
INSERT INTO tensor_layouts (n_dims, dims, n_elements, type_id, type_name, expected_bytes, bytes)
SELECT min(n_dims), dims, min(n_elements), type_id, type_name, expected_bytes, bytes FROM tensors
 GROUP BY dims, type_name, type_id, expected_bytes, bytes ORDER BY type_name, dims;
INSERT INTO tensor_rows (file_id, name_id, layout_id, offset32, info_to_data)
SELECT t.file_id, n.name_id, l.layout_id, iif(t.offset % 32 = 0, t.offset / 32, -1 - t.offset), f.data_start - t.info_offset
  FROM tensors t
  JOIN files f ON f.file_id = t.file_id
  JOIN tensor_names n ON n.name = t.name
  JOIN tensor_layouts l ON l.dims = t.dims AND l.type_name = t.type_name AND l.type_id IS t.type_id
                       AND l.expected_bytes IS t.expected_bytes AND l.bytes = t.bytes
 ORDER BY t.file_id, n.name_id;
DROP INDEX tensors_model;
DROP TABLE tensors;

CREATE TABLE policy_rows (
    model_id    INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    tensor_kind TEXT NOT NULL,     -- tensors.kind
    type_id     INTEGER,           -- ggml type id; NULL for safetensors
    type_name   TEXT NOT NULL,
    tensors     INTEGER NOT NULL,  -- tensors of this kind and type
    layers_id   INTEGER REFERENCES layer_lists(layers_id),  -- their layers; NULL when none has a layer
    PRIMARY KEY (model_id, tensor_kind, type_name)
) WITHOUT ROWID;
CREATE TABLE layer_lists (
    layers_id INTEGER PRIMARY KEY,
    layers    TEXT NOT NULL UNIQUE     -- ascending, comma-separated without spaces
);
INSERT INTO layer_lists (layers) SELECT DISTINCT layers FROM policy_layers WHERE layers IS NOT NULL ORDER BY layers;
INSERT INTO policy_rows (model_id, tensor_kind, type_id, type_name, tensors, layers_id)
SELECT p.model_id, p.tensor_kind, p.type_id, p.type_name, p.tensors, l.layers_id
  FROM policy_layers p LEFT JOIN layer_lists l ON l.layers = p.layers ORDER BY p.model_id, p.tensor_kind, p.type_name;
DROP TABLE policy_layers;
