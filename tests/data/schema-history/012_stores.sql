-- modelcat catalogue, schema version 12: the stores models live in (Hugging Face cache, Ollama,
-- LM Studio), what kind of artifact each GGUF is, what tells re-uploads apart, and the KV cache.
-- Columns added here are NULL for models catalogued before until their files are read again
-- (changed, or --force); `kind` is filled below from the rows already catalogued.

-- files, rebuilt for the new role (SQLite cannot change a CHECK in place): copied out,
-- dropped, created, copied back, with foreign keys off for the migration (src/catalog/catalog.cpp),
-- SQLite's documented way, so that no child row cascades and the views reading `files` survive.
CREATE TEMP TABLE files_before AS SELECT * FROM main.files;
DROP TABLE main.files;

-- One physical file of a model.
CREATE TABLE main.files (
    file_id      INTEGER PRIMARY KEY,
    model_id     INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    location     TEXT NOT NULL UNIQUE,   -- absolute path as given (symlinks not resolved; store blobs: the blob read), or URL
    role         TEXT NOT NULL DEFAULT 'data' CHECK (role IN ('data', 'index', 'config', 'manifest')),  -- data: holds tensors; index: model.safetensors.index.json; config: config.json; manifest: an Ollama tag's manifest (its metadata: ollama.layers and the text layers)
    shard        INTEGER NOT NULL DEFAULT 0,  -- 0-based position among the model's data files
    format       TEXT NOT NULL CHECK (format IN ('gguf', 'safetensors', 'json')),
    version      INTEGER,                -- GGUF version 1-3; NULL otherwise
    endianness   TEXT,                   -- little | big; NULL for JSON files
    size         INTEGER NOT NULL,       -- file size
    header_bytes INTEGER NOT NULL,       -- bytes before tensor data (GGUF: aligned data start clamped to size; safetensors: 8 + header length; JSON: size)
    data_start   INTEGER NOT NULL,       -- where tensor data starts (GGUF: may exceed size in vocab-only files)
    alignment    INTEGER,                -- GGUF alignment used (general.alignment or 32)
    declared_kv_count INTEGER NOT NULL,  -- GGUF kv_count as declared (duplicates included); safetensors __metadata__ entries; side files: their metadata rows
    tensor_count INTEGER NOT NULL,       -- tensors in this file
    bytes_read   INTEGER NOT NULL,       -- bytes actually read to catalogue the file (a manifest: with its text layers)
    requests     INTEGER NOT NULL,       -- reads issued for it
    read_ms      REAL NOT NULL,          -- time spent reading and parsing its header
    mtime_ns     INTEGER,                -- local files: modification time, ns since the epoch
    status       TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'stale', 'gone')),  -- ok; stale = last read failed, rows are from before
    last_error   TEXT,                   -- message of the last failed read, if stale
    crawl_id     INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- crawl that last read it
    inode        INTEGER,                -- local files: inode number
    device       INTEGER,                -- local files: device id
    header_hash  TEXT,                   -- 64-bit content hash (hex) of the header bytes: equal size + hash = same content
    checked_crawl_id INTEGER REFERENCES crawls(crawl_id),  -- last crawl that saw it unchanged or read it
    gone_crawl_id    INTEGER REFERENCES crawls(crawl_id),  -- crawl that found it missing (status 'gone')
    etag         TEXT,                   -- ETag of the final response (the CDN's, behind the Hub's redirect)
    last_modified TEXT,                  -- Last-Modified of the final response
    sha256       TEXT,                   -- the content's sha256 when known without reading it: the Hub's X-Linked-Etag or lfs.oid, an Ollama layer's digest, an HF cache blob's name
    final_url    TEXT,                   -- URL after redirects (a presigned target without its query)
    http_status  INTEGER,                -- status of the last header read (206, or 200 for a small whole file)
    revision     TEXT,                   -- hf:// inputs: the commit the listing pinned (X-Repo-Commit), else the revision asked for
    reread       INTEGER NOT NULL DEFAULT 0,  -- 1: a value was changed by schema <= 5's affinity; the next crawl reads the file again
    ggml_refusals INTEGER,               -- GGUF data files: how many reasons ggml would refuse it for (0 = ggml reads it); NULL for other files and for files catalogued before that check
    xet_hash     TEXT,                   -- the content's Xet hash when the Hub says it (X-Xet-Hash on the resolve/ redirect, or xetHash in the listing)
    resolver_calls INTEGER,              -- remote files: requests to the file's /resolve/ URL (the Hub's "resolvers" budget), retries included
    storage_reads  INTEGER,              -- remote files: requests to where the file's bytes are (the redirect target, or a plain URL)
    tensor_index_hash TEXT,              -- data files: 64-bit hash (hex) of every tensor's (name, type, dims, offset) in file order
    metadata_hash     TEXT               -- data files: 64-bit hash (hex) of every metadata entry (key, type, value), in key order
);
INSERT INTO main.files SELECT *, NULL, NULL FROM temp.files_before;
DROP TABLE temp.files_before;
CREATE INDEX main.files_model ON files(model_id);

-- Per model: what it is, and what tells it from a re-upload.
ALTER TABLE models ADD COLUMN kind TEXT;  -- model | mmproj | adapter | imatrix | vocab | unknown: the rule is in README "Kinds" and src/format/model_kind.hpp
ALTER TABLE models ADD COLUMN chat_template_hash TEXT;  -- 64-bit hash (hex) of tokenizer.chat_template as stored; NULL without one
ALTER TABLE models ADD COLUMN tensor_index_hash TEXT;   -- 64-bit hash (hex) of the data files' tensor indexes, in shard order (files.tensor_index_hash's encoding)
-- The KV cache estimate at F16 (src/format/kv_cache.hpp): at a context of C tokens,
-- kv_full_bytes_per_1k * C / 1024 + kv_swa_bytes_per_1k * min(C, sliding_window) / 1024.
ALTER TABLE models ADD COLUMN kv_full_bytes_per_1k INTEGER;  -- bytes per 1,024 tokens of the layers attending over the whole context; NULL when the header lacks the attention hyperparameters
ALTER TABLE models ADD COLUMN kv_swa_bytes_per_1k INTEGER;   -- the same for sliding-window layers, while the context fits in the window (0 without a pattern)
ALTER TABLE models ADD COLUMN kv_swa_layers INTEGER;         -- how many layers slide (attention.sliding_window_pattern)
ALTER TABLE models ADD COLUMN sliding_window INTEGER;        -- <architecture>.attention.sliding_window, tokens; NULL when absent

-- How each store names the models it holds: one row per name (a snapshot's file, an Ollama tag's
-- layer, an LM Studio file). Several names can lead to one model (two tags, two snapshots sharing
-- a blob): the blob is read once per crawl. Written after the crawl's models; a name the store no
-- longer has (a removed tag, a pruned snapshot) is marked gone, never deleted, while the blob
-- another name still uses stays.
CREATE TABLE store_names (
    store         TEXT NOT NULL CHECK (store IN ('hf_cache', 'ollama', 'lmstudio')),
    root          TEXT NOT NULL,      -- the store as crawled: its folder, or ollama://REGISTRY for a remote registry
    name          TEXT NOT NULL,      -- as the store names it: owner/name@commit/file (HF cache), library/llama3.1:8b or hf.co/owner/repo:tag (Ollama), publisher/repo/file (LM Studio)
    role          TEXT NOT NULL CHECK (role IN ('model', 'projector', 'adapter')),  -- Ollama: the manifest layer the model came from; elsewhere model
    repo          TEXT,               -- owner/name (HF cache), [registry/]namespace/model (Ollama), publisher/repo (LM Studio)
    revision      TEXT,               -- HF cache: the snapshot's commit; Ollama: the tag; NULL for LM Studio
    refs          TEXT,               -- HF cache: the refs naming that commit (main, ...), comma-separated; NULL otherwise
    digest        TEXT,               -- the blob's name in the store: sha256 hex (HF LFS files, Ollama) or a git oid; NULL for LM Studio
    path          TEXT NOT NULL,      -- where the name lives: the snapshot's link, the manifest, the file
    location      TEXT NOT NULL,      -- files.location of the model's first data file (the blob read)
    model_id      INTEGER REFERENCES models(model_id) ON DELETE SET NULL,  -- NULL while that file is not catalogued (it failed, or a crawl stopped first)
    status        TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'gone')),
    seen_crawl_id INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- last crawl that found the name
    gone_crawl_id INTEGER REFERENCES crawls(crawl_id),           -- crawl that found it removed
    PRIMARY KEY (store, root, name, role)
);
CREATE INDEX store_names_model ON store_names(model_id);

-- The kind of the models catalogued before, by the same rule (src/format/model_kind.cpp) over their rows.
UPDATE models SET kind = (
    WITH md AS (SELECT d.key, d.value FROM files f JOIN metadata d ON d.file_id = f.file_id
                 WHERE f.model_id = models.model_id AND f.role = 'data'),
         gtype AS (SELECT (SELECT value FROM md WHERE key = 'general.type' AND typeof(value) = 'text' LIMIT 1) AS t)
    SELECT CASE
        WHEN gtype.t IN ('adapter', 'mmproj', 'imatrix') THEN gtype.t
        WHEN EXISTS (SELECT 1 FROM md WHERE key GLOB 'adapter.*')
          OR EXISTS (SELECT 1 FROM tensors WHERE model_id = models.model_id
                        AND ('.' || lower(name) || '.' GLOB '*.lora_a.*' OR '.' || lower(name) || '.' GLOB '*.lora_b.*'))
            THEN 'adapter'
        WHEN EXISTS (SELECT 1 FROM md WHERE key = 'general.architecture' AND value = 'clip')
          OR EXISTS (SELECT 1 FROM md WHERE key GLOB 'clip.*') THEN 'mmproj'
        WHEN EXISTS (SELECT 1 FROM tensors WHERE model_id = models.model_id AND name GLOB '*.in_sum2') THEN 'imatrix'
        WHEN models.tensor_count = 0 AND EXISTS (SELECT 1 FROM md WHERE key GLOB 'tokenizer.*') THEN 'vocab'
        WHEN models.tensor_count > 0 AND (gtype.t IS NULL OR gtype.t = 'model') THEN 'model'
        ELSE 'unknown' END
      FROM gtype);

-- The policy views compare models, not projectors, adapters or vocab files: kind = 'model'.
DROP VIEW policy_deviations;
CREATE VIEW policy_deviations AS
SELECT p.model_id, m.name, m.majority_type_name AS majority_type, p.type_id, p.type_name, p.tensor_kind, p.layers, p.tensors
  FROM policy_layers p
  JOIN models m USING (model_id)
 WHERE p.type_name <> m.majority_type_name AND p.type_name <> 'F32' AND m.kind = 'model';

DROP VIEW same_file_type_different_policy;
CREATE VIEW same_file_type_different_policy AS
SELECT g.architecture, g.file_type, f.name AS file_type_name,
       count(*) AS models, count(DISTINCT g.policy_hash) AS policies,
       group_concat(g.model_id, ',') AS model_ids, group_concat(g.name, ',') AS names
  FROM (SELECT * FROM models WHERE file_type IS NOT NULL AND kind = 'model' ORDER BY model_id) g
  LEFT JOIN file_type_names f ON f.file_type = g.file_type
 GROUP BY g.architecture, g.block_count, g.file_type
HAVING count(DISTINCT g.policy_hash) > 1;

-- Every tensor type seen in models (kind = 'model'): its rate from the ggml table and as measured.
DROP VIEW type_rates;
CREATE VIEW type_rates AS
SELECT c.type_id, c.type_name, g.bits_per_weight AS table_bits_per_weight,
       CASE WHEN sum(c.params) > 0 THEN sum(c.bytes) * 8.0 / sum(c.params) END AS measured_bits_per_weight,
       sum(c.tensors) AS tensors, count(DISTINCT c.model_id) AS models
  FROM census c JOIN models m ON m.model_id = c.model_id AND m.kind = 'model'
  LEFT JOIN ggml_types g ON g.type_id = c.type_id
 GROUP BY c.type_id, c.type_name;

-- One row per model of every kind (the quant_summary report shows kind = 'model' unless asked).
DROP VIEW quant_summary;
CREATE VIEW quant_summary AS
SELECT m.model_id, m.name, m.location, m.format, m.architecture, m.file_type,
       f.name AS file_type_name,                        -- file_type_names.name (MOSTLY_Q4_K_M); NULL when absent or unknown
       m.file_bytes, m.header_bytes, m.params,
       CASE WHEN m.params > 0 THEN (m.file_bytes - m.header_bytes) * 8.0 / m.params END AS bits_per_weight,
       m.tensor_count, m.kv_count, m.census,
       m.kind                                           -- schema 12: model, mmproj, adapter, imatrix, vocab, unknown
  FROM models m LEFT JOIN file_type_names f ON f.file_type = m.file_type;

-- LoRA adapters: their type and alpha as the file holds them, and the architecture they adapt.
CREATE VIEW adapters AS
SELECT m.model_id, m.name, m.location, m.architecture AS base_architecture,
       (SELECT value FROM metadata WHERE file_id = f.file_id AND key = 'adapter.type') AS adapter_type,
       (SELECT value FROM metadata WHERE file_id = f.file_id AND key = 'adapter.lora.alpha') AS lora_alpha
  FROM models m JOIN files f ON f.model_id = m.model_id AND f.role = 'data' AND f.shard = 0
 WHERE m.kind = 'adapter';

-- Where a quant came from: the importance matrix it was made with (llama-quantize's
-- quantize.imatrix.* keys, as stored), its chat template and tensor index.
CREATE VIEW quant_provenance AS
SELECT m.model_id, m.name, m.kind,
       (SELECT value FROM metadata WHERE file_id = f.file_id AND key = 'quantize.imatrix.file') AS imatrix_file,
       (SELECT value FROM metadata WHERE file_id = f.file_id AND key = 'quantize.imatrix.dataset') AS imatrix_dataset,
       (SELECT value FROM metadata WHERE file_id = f.file_id AND key = 'quantize.imatrix.entries_count') AS imatrix_entries,
       (SELECT value FROM metadata WHERE file_id = f.file_id AND key = 'quantize.imatrix.chunks_count') AS imatrix_chunks,
       m.chat_template_hash, m.tensor_index_hash
  FROM models m JOIN files f ON f.model_id = m.model_id AND f.role = 'data' AND f.shard = 0;

-- Data files whose tensor index is identical (same names, types, shapes and offsets) but whose
-- metadata differs: a re-templated or re-tagged upload of the same weights, or (headers cannot
-- tell) another fine-tune with the same layout; `modelcat audit` compares values.
CREATE VIEW same_weights_different_metadata AS
SELECT f.tensor_index_hash, count(*) AS files, count(DISTINCT f.metadata_hash) AS metadata_variants,
       group_concat(f.location, char(10)) AS locations, group_concat(f.model_id, ',') AS model_ids
  FROM (SELECT * FROM files WHERE role = 'data' AND status <> 'gone' AND tensor_count > 0
           AND tensor_index_hash IS NOT NULL ORDER BY location) f
 GROUP BY f.tensor_index_hash
HAVING count(DISTINCT f.metadata_hash) > 1;

-- Memory at a glance: tensor bytes as measured, and the KV cache per 1,024 tokens of context at
-- F16 (an estimate of the two largest terms, not a promise about any runtime; see models.kv_*).
CREATE VIEW model_memory AS
SELECT m.model_id, m.name, m.kind, m.architecture, m.params,
       (SELECT sum(c.bytes) FROM census c WHERE c.model_id = m.model_id) AS tensor_bytes,
       m.kv_full_bytes_per_1k + m.kv_swa_bytes_per_1k AS kv_bytes_per_1k_tokens,
       m.kv_full_bytes_per_1k, m.kv_swa_bytes_per_1k, m.kv_swa_layers, m.sliding_window
  FROM models m;

-- A store's model and what its manifest links to it (an Ollama tag's projector and adapter).
CREATE VIEW store_links AS
SELECT s.store, s.name, s.model_id, l.role, l.model_id AS linked_model_id
  FROM store_names s JOIN store_names l ON l.store = s.store AND l.root = s.root AND l.name = s.name AND l.role <> 'model'
 WHERE s.role = 'model' AND s.status = 'ok' AND l.status = 'ok';

-- A model named by its model_id, its name, its first file's location, or a name its store gives it.
DROP VIEW model_refs;
CREATE VIEW model_refs AS
SELECT CAST(model_id AS TEXT) AS ref, model_id FROM models
UNION ALL SELECT name, model_id FROM models
UNION ALL SELECT location, model_id FROM models
UNION ALL SELECT name, model_id FROM store_names WHERE role = 'model' AND status = 'ok' AND model_id IS NOT NULL;
