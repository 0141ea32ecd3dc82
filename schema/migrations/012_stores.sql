-- Brings a schema-11 catalogue to 12: the stores models live in (Hugging Face cache, Ollama,
-- LM Studio), what kind of artifact each GGUF is, what tells re-uploads apart, and the KV cache.

-- files, rebuilt for the new role (SQLite cannot change a CHECK in place): copied out, dropped,
-- created, copied back, with foreign keys off for the migration (src/catalog/schema.cpp), SQLite's
-- documented way, so that no child row cascades.
CREATE TEMP TABLE files_before AS SELECT * FROM main.files;
DROP TABLE main.files;
CREATE TABLE main.files (
    file_id      INTEGER PRIMARY KEY,
    model_id     INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    location     TEXT NOT NULL UNIQUE,
    role         TEXT NOT NULL DEFAULT 'data' CHECK (role IN ('data', 'index', 'config', 'manifest')),
    shard        INTEGER NOT NULL DEFAULT 0,
    format       TEXT NOT NULL CHECK (format IN ('gguf', 'safetensors', 'json')),
    version      INTEGER,
    endianness   TEXT,
    size         INTEGER NOT NULL,
    header_bytes INTEGER NOT NULL,
    data_start   INTEGER NOT NULL,
    alignment    INTEGER,
    declared_kv_count INTEGER NOT NULL,
    tensor_count INTEGER NOT NULL,
    bytes_read   INTEGER NOT NULL,
    requests     INTEGER NOT NULL,
    read_ms      REAL NOT NULL,
    mtime_ns     INTEGER,
    status       TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'stale', 'gone')),
    last_error   TEXT,
    crawl_id     INTEGER NOT NULL REFERENCES crawls(crawl_id),
    inode        INTEGER,
    device       INTEGER,
    header_hash  TEXT,
    checked_crawl_id INTEGER REFERENCES crawls(crawl_id),
    gone_crawl_id    INTEGER REFERENCES crawls(crawl_id),
    etag         TEXT,
    last_modified TEXT,
    sha256       TEXT,
    final_url    TEXT,
    http_status  INTEGER,
    revision     TEXT,
    reread       INTEGER NOT NULL DEFAULT 0,
    ggml_refusals INTEGER,
    xet_hash     TEXT,
    resolver_calls INTEGER,
    storage_reads  INTEGER,
    tensor_index_hash TEXT,
    metadata_hash     TEXT
);
INSERT INTO main.files SELECT *, NULL, NULL FROM temp.files_before;
DROP TABLE temp.files_before;
CREATE INDEX main.files_model ON files(model_id);

ALTER TABLE models ADD COLUMN kind TEXT;
ALTER TABLE models ADD COLUMN chat_template_hash TEXT;
ALTER TABLE models ADD COLUMN tensor_index_hash TEXT;
ALTER TABLE models ADD COLUMN kv_full_bytes_per_1k INTEGER;
ALTER TABLE models ADD COLUMN kv_swa_bytes_per_1k INTEGER;
ALTER TABLE models ADD COLUMN kv_swa_layers INTEGER;
ALTER TABLE models ADD COLUMN sliding_window INTEGER;

CREATE TABLE store_names (
    store         TEXT NOT NULL CHECK (store IN ('hf_cache', 'ollama', 'lmstudio')),
    root          TEXT NOT NULL,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('model', 'projector', 'adapter')),
    repo          TEXT,
    revision      TEXT,
    refs          TEXT,
    digest        TEXT,
    path          TEXT NOT NULL,
    location      TEXT NOT NULL,
    model_id      INTEGER REFERENCES models(model_id) ON DELETE SET NULL,
    status        TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'gone')),
    seen_crawl_id INTEGER NOT NULL REFERENCES crawls(crawl_id),
    gone_crawl_id INTEGER REFERENCES crawls(crawl_id),
    PRIMARY KEY (store, root, name, role)
);
CREATE INDEX store_names_model ON store_names(model_id);

-- The crawl's rule (src/format/model_kind.cpp, src/crawl/model_rows.cpp) fills the new columns:
-- every file still there is read again by the next crawl; until then they are NULL, and the views
-- that select kind = 'model' leave the model out.
UPDATE files SET reread = 1 WHERE status <> 'gone';
