-- Brings a schema-2 catalogue to 3: the reference tables (their rows: schema/reference.sql,
-- written after every migration).
CREATE TABLE file_type_names (
    file_type INTEGER PRIMARY KEY,
    name      TEXT NOT NULL,
    removed   INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE tensor_name_map (
    architecture TEXT NOT NULL,
    source_kind  TEXT NOT NULL,
    gguf_kind    TEXT NOT NULL,
    PRIMARY KEY (architecture, source_kind)
) WITHOUT ROWID;
