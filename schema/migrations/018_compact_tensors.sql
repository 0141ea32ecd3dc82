-- Brings a schema-17 catalogue to 18: tensors stored compactly (schema/current.sql, "Tensor
-- descriptors"). Each distinct name and (shape, type) is written once, and every tensor becomes a
-- tensor_rows row referencing them; the view `tensors` reads them as the table did. Nothing is
-- derived anew: a name's layer and kind, a layout's counts and every size are the stored values.
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
    UNIQUE (dims, type_name, type_id, expected_bytes)
);
CREATE TABLE tensor_rows (
    file_id     INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    name_id     INTEGER NOT NULL REFERENCES tensor_names(name_id),
    layout_id   INTEGER NOT NULL REFERENCES tensor_layouts(layout_id),
    offset      INTEGER NOT NULL,        -- relative to the data start
    extra_bytes INTEGER NOT NULL,        -- measured bytes minus the layout's expected_bytes (0 when NULL)
    info_offset INTEGER NOT NULL,        -- byte offset of the descriptor in the file
    PRIMARY KEY (file_id, name_id)
) WITHOUT ROWID;

INSERT INTO tensor_names (name, layer, kind) SELECT name, min(layer), min(kind) FROM tensors GROUP BY name ORDER BY name;
INSERT INTO tensor_layouts (n_dims, dims, n_elements, type_id, type_name, expected_bytes)
SELECT min(n_dims), dims, min(n_elements), type_id, type_name, expected_bytes FROM tensors
 GROUP BY dims, type_name, type_id, expected_bytes ORDER BY type_name, dims;
INSERT INTO tensor_rows (file_id, name_id, layout_id, offset, extra_bytes, info_offset)
SELECT t.file_id, n.name_id, l.layout_id, t.offset, t.bytes - coalesce(t.expected_bytes, 0), t.info_offset
  FROM tensors t
  JOIN tensor_names n ON n.name = t.name
  JOIN tensor_layouts l ON l.dims = t.dims AND l.type_name = t.type_name AND l.type_id IS t.type_id
                       AND l.expected_bytes IS t.expected_bytes
 ORDER BY t.file_id, n.name_id;
DROP INDEX tensors_model;
DROP TABLE tensors;
