-- modelcat catalogue, schema version 19: every table, index and view, in one file (over 500 lines) so that the schema reads whole.
-- A new catalogue is this file, run in one transaction (it ends by setting PRAGMA user_version);
-- an older one is brought here by schema/migrations/NNN_*.sql, NNN the version each brings it to
-- (none brings one to 1, which was only ever created, or to 2, which added views only). Migrations
-- change tables and move data; the views exist only here (src/catalog/schema.cpp sets them aside
-- while migrating). A migration adding what the crawl derives from headers computes none of it in
-- SQL: it marks every file for the next crawl to read again (files.reread), and until then those
-- columns are NULL.
-- Each table's columns are in the order the migrations leave them (ALTER TABLE ADD COLUMN appends),
-- so that a migrated catalogue and a new one are the same; a later version's columns are grouped
-- at the end of their table under a comment naming it.
-- The reference rows (tensor_name_map) are schema/reference.sql; ggml_types' and file_type_names'
-- are the binary's tables (src/model/ggml_types.def, file_types.def): all are written by every
-- writable open, so that a later build's knowledge reaches an older catalogue without a migration.
--
-- These names and columns are public API: reports and users' SQL depend on them.
-- Sizes are bytes, counts are plain integers, offsets are byte positions, times are UTC.

------------------------------------------------------------------------------------------------
-- Crawls and what they catalogued
------------------------------------------------------------------------------------------------

-- One run of `modelcat crawl`.
CREATE TABLE crawls (
    crawl_id     INTEGER PRIMARY KEY,
    started_at   TEXT NOT NULL,          -- ISO 8601
    finished_at  TEXT,                   -- NULL while running or if the crawl was killed
    inputs       TEXT NOT NULL,          -- JSON array of the inputs as given
    files_ok     INTEGER NOT NULL DEFAULT 0,  -- files read and catalogued (files_new + files_changed)
    files_failed INTEGER NOT NULL DEFAULT 0,  -- files recorded in errors
    tensors      INTEGER NOT NULL DEFAULT 0,  -- tensor rows written
    bytes_read   INTEGER NOT NULL DEFAULT 0,  -- header bytes actually read, all files
    requests     INTEGER NOT NULL DEFAULT 0,  -- reads issued (local reads or HTTP requests)
    seconds      REAL,                        -- wall time of the crawl
    -- schema 4: incremental crawls
    files_new       INTEGER NOT NULL DEFAULT 0,  -- read for the first time
    files_changed   INTEGER NOT NULL DEFAULT 0,  -- re-read: size, mtime or identity changed, or marked reread
    files_unchanged INTEGER NOT NULL DEFAULT 0,  -- skipped: identity unchanged, no header bytes read
    files_gone      INTEGER NOT NULL DEFAULT 0,  -- catalogued before, missing now
    -- schema 10: what a Hub crawl spends of each rate-limit budget
    api_calls      INTEGER NOT NULL DEFAULT 0,  -- requests to /api/ URLs (Hub tree listings: the "api" budget)
    resolver_calls INTEGER NOT NULL DEFAULT 0,  -- requests to /resolve/ URLs (the Hub's "resolvers" budget)
    storage_reads  INTEGER NOT NULL DEFAULT 0,  -- other HTTP requests: redirect targets and plain URLs
    status TEXT CHECK (status IN ('finished', 'interrupted')),  -- NULL while running or if killed; 'interrupted': stopped by SIGINT/SIGTERM or --deadline, the models not started are left for the next crawl
    -- schema 17: discovery through the Hub's models API (hf://AUTHOR/*, hf-search:), within api_calls
    model_pages     INTEGER NOT NULL DEFAULT 0,  -- pages of /api/models read (sorted by lastModified, newest first)
    repo_listings   INTEGER NOT NULL DEFAULT 0,  -- tree listing pages of single repositories (/api/models/OWNER/REPO/tree/...)
    repos_changed   INTEGER NOT NULL DEFAULT 0,  -- repositories whose files were listed: new, changed, or left pending by an earlier crawl
    repos_unchanged INTEGER NOT NULL DEFAULT 0,  -- repositories the models API showed at the sha recorded: not listed, their files kept as they are
    repos_gone      INTEGER NOT NULL DEFAULT 0   -- repositories a full listing no longer showed and the Hub answered 404 for: their files marked gone
);

-- One catalogued artifact: a GGUF file, a split GGUF set, or a safetensors checkpoint.
-- Re-crawling the same location replaces its rows, keeping model_id.
CREATE TABLE models (
    model_id     INTEGER PRIMARY KEY,
    location     TEXT NOT NULL UNIQUE,   -- the model's first data file: absolute path as given, or URL
    name         TEXT NOT NULL,          -- file stem; split set stem; checkpoint folder; owner/repo for Hub URLs; a store's name for it
    format       TEXT NOT NULL CHECK (format IN ('gguf', 'safetensors')),
    architecture TEXT,                   -- general.architecture (GGUF) or config.json model_type; NULL when absent
    file_type    INTEGER,                -- general.file_type (llama_ftype id, see file_type_names); NULL when absent
    tensor_count INTEGER NOT NULL,       -- tensors over all data files
    kv_count     INTEGER NOT NULL,       -- distinct metadata keys over the data files
    params       INTEGER NOT NULL,       -- sum of tensor elements
    file_bytes   INTEGER NOT NULL,       -- sum of the data files' sizes (not index or config)
    header_bytes INTEGER NOT NULL,       -- sum of the data files' header bytes
    policy_hash  TEXT,                   -- 64-bit hash of the sorted (tensor name, type) list: equal hash = same quantization policy
    shape_hash   TEXT,                   -- layer-free policy: 64-bit hash of the sorted (kind, type, tensors) list
    crawl_id     INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- crawl that last wrote it
    updated_at   TEXT NOT NULL,          -- when it was last written
    -- schema 7: what the views read instead of recomputing it, written by the crawl (src/crawl/model_rows.cpp).
    -- NULL for a model migrated from schema <= 6 until the next crawl re-reads its files (files.reread).
    block_count,                         -- metadata '<architecture>.block_count' as stored (first data file holding it); NULL when absent (checkpoints)
    majority_type_id INTEGER,            -- census type held by the most tensors, F32 excluded (ties: more params, lower type_id, then type_name); NULL if none
    majority_type_name TEXT,             -- its type_name (BF16 for checkpoints, whose type_id is NULL)
    census TEXT,                         -- 'type:count' pairs by params descending, ties by type_id then type_name (quant_summary.census)
    -- schema 12: what the model is and what tells it from a re-upload (schema 15 dropped its KV cache
    -- estimate, kv_*_bytes_per_1k, kv_swa_layers and sliding_window, for memory_terms).
    -- NULL for a model migrated from schema <= 11 until the next crawl re-reads its files (files.reread).
    kind TEXT,                           -- model | mmproj | adapter | imatrix | vocab | unknown: the rule is src/format/model_kind.hpp (README "Kinds")
    chat_template_hash TEXT,             -- 64-bit hash (hex) of tokenizer.chat_template as stored; NULL without one
    tensor_index_hash TEXT               -- 64-bit hash (hex) of the data files' tensor indexes, in shard order (files.tensor_index_hash's encoding)
);
CREATE INDEX models_name ON models(name);  -- references by name (model_refs, `-p model=NAME`)
-- schema 20: the orders the model-wide reports print in, so that they stream (named_tensors, quants, quant_summary)
CREATE INDEX models_file_bytes ON models(file_bytes);
CREATE INDEX models_format_size ON models(format, file_bytes);
CREATE INDEX models_format_name ON models(format, name);
-- schema 21: what the whole-catalogue views group by, so that they read an index, not every row
CREATE INDEX models_policy_groups ON models(architecture, block_count, file_type, model_id, policy_hash)
    WHERE file_type IS NOT NULL AND kind = 'model';  -- same_file_type_different_policy
CREATE INDEX models_other_kinds ON models(kind) WHERE kind IS NOT 'model';  -- type_rates subtracts these few
-- schema 23: models by quant_summary.bits_per_weight (the same expression), largest first, the order fits prints in
CREATE INDEX models_rate ON models((CASE WHEN params > 0 THEN (file_bytes - header_bytes) * 8.0 / params END) DESC, name, model_id);

-- One physical file of a model.
CREATE TABLE files (
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
    declared_kv_count INTEGER NOT NULL,  -- GGUF kv_count as declared (duplicates included); safetensors __metadata__ entries; side files: their metadata rows (schema 11 renamed it from kv_count)
    tensor_count INTEGER NOT NULL,       -- tensors in this file
    bytes_read   INTEGER NOT NULL,       -- bytes actually read to catalogue the file (a manifest: with its text layers)
    requests     INTEGER NOT NULL,       -- reads issued for it
    read_ms      REAL NOT NULL,          -- time spent reading and parsing its header
    mtime_ns     INTEGER,                -- local files: modification time, ns since the epoch
    status       TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'stale', 'gone')),  -- ok; stale = last read failed, rows are from before; gone = missing
    last_error   TEXT,                   -- message of the last failed read, if stale
    crawl_id     INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- crawl that last read it
    -- schema 4: what identifies a file's content without reading it again
    inode        INTEGER,                -- local files: inode number
    device       INTEGER,                -- local files: device id
    header_hash  TEXT,                   -- 64-bit content hash (hex) of the header bytes: equal size + hash = same content
    checked_crawl_id INTEGER REFERENCES crawls(crawl_id),  -- last crawl that saw it unchanged or read it
    gone_crawl_id    INTEGER REFERENCES crawls(crawl_id),  -- crawl that found it missing (status 'gone')
    -- schema 5: what identifies a remote file
    etag         TEXT,                   -- ETag of the final response (the CDN's, behind the Hub's redirect)
    last_modified TEXT,                  -- Last-Modified of the final response
    sha256       TEXT,                   -- the content's sha256 when known without reading it: the Hub's X-Linked-Etag or lfs.oid, an Ollama layer's digest, an HF cache blob's name
    final_url    TEXT,                   -- URL after redirects (a presigned target without its query)
    http_status  INTEGER,                -- status of the last header read (206, or 200 for a small whole file)
    revision     TEXT,                   -- hf:// inputs: the commit the listing pinned (X-Repo-Commit), else the revision asked for
    -- schema 6
    reread       INTEGER NOT NULL DEFAULT 0,  -- 1: the next crawl reads the file again whatever its identity says; set by a migration (a value schema <= 5's affinity changed; a column the crawl computes, schemas 7 and 12), cleared when it is read
    -- schema 9
    ggml_refusals INTEGER,               -- GGUF data files: how many reasons ggml would refuse it for (0 = ggml reads it, see ggml_refusals); NULL for other files, and for one migrated from schema <= 8 until the next crawl re-reads it
    -- schema 10: the Hub
    xet_hash     TEXT,                   -- the content's Xet hash when the Hub says it (X-Xet-Hash on the resolve/ redirect, or xetHash in the listing)
    resolver_calls INTEGER,              -- remote files: requests to the file's /resolve/ URL (the Hub's "resolvers" budget), retries included
    storage_reads  INTEGER,              -- remote files: requests to where the file's bytes are (the redirect target, or a plain URL)
    -- schema 12: what tells re-uploads apart
    tensor_index_hash TEXT,              -- data files: 64-bit hash (hex) of every tensor's (name, type, dims, offset) in file order
    metadata_hash     TEXT               -- data files: 64-bit hash (hex) of every metadata entry (key, type, value), in key order
);
CREATE INDEX files_model ON files(model_id);
-- schema 21: duplicates and same_weights_different_metadata group by these (the latter reads its
-- answer from the index alone, in location order within each group)
CREATE INDEX files_same_sha256 ON files(sha256)
    WHERE status <> 'gone' AND header_hash IS NOT NULL AND role = 'data' AND sha256 IS NOT NULL;
CREATE INDEX files_same_header ON files(size, header_hash)
    WHERE status <> 'gone' AND header_hash IS NOT NULL AND role = 'data' AND sha256 IS NULL;
CREATE INDEX files_same_tensor_index ON files(tensor_index_hash, location, metadata_hash, model_id)
    WHERE role = 'data' AND status <> 'gone' AND tensor_count > 0 AND tensor_index_hash IS NOT NULL;

-- Metadata: GGUF key/values, safetensors __metadata__ strings, config.json values, an Ollama
-- manifest's layers. `value` has no declared type (BLOB affinity), so SQLite converts nothing
-- and any SQLite 3 opens the catalogue (STRICT needs 3.37). How values are stored, by value_type:
--   string                            TEXT, whatever it looks like ("0123", "1e5", " 42", "")
--   uint8..int64, uint64 <= 2^63-1    INTEGER
--   uint64 above 2^63-1               TEXT: its decimal digits ('18446744073709551615')
--   float32, float64                  REAL (float32 widened exactly; -0.0 keeps its sign, ±infinity is
--                                     SQLite's Inf/-Inf); NaN is the TEXT 'NaN' (SQLite has no NaN: it would store NULL)
--   bool                              INTEGER 0 or 1
--   array                             TEXT, the JSON of the values when array_length <= 64, else NULL
-- safetensors __metadata__ values are strings; config.json values take the JSON type
-- (string, int64, uint64, float64, bool, array).
CREATE TABLE metadata (
    model_id     INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    file_id      INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    value_type   TEXT NOT NULL,          -- uint8 int8 uint16 int16 uint32 int32 float32 bool string array uint64 int64 float64
    value,                               -- no declared type, so stored as bound: see above
    array_type   TEXT,                   -- element type of an array
    array_length INTEGER,                -- element count of an array
    array_bytes  INTEGER,                -- encoded size of the array's elements in the file
    array_hash   TEXT,                   -- 64-bit content hash (hex) of the array's canonical encoding: equal hash = identical content
    offset       INTEGER NOT NULL,       -- byte offset of the key in the file
    PRIMARY KEY (file_id, key)
) WITHOUT ROWID;
CREATE INDEX metadata_key ON metadata(key);

-- Tensor descriptors (schema 18): what repeats across files, a name and a shape with its type, is
-- stored once and referenced; a file's tensor is a short row of the numbers only it holds. The view
-- `tensors` (with the views, below) reads them as one row per tensor, with the columns it always had.
-- Names and layouts are never deleted (they are shared, and few: a few thousand per 100,000 models).

-- Each tensor name once, with what the crawl derives from the name alone.
CREATE TABLE tensor_names (
    name_id INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    layer   INTEGER,                     -- N of blk.N. / model.layers.N.; NULL otherwise
    kind    TEXT NOT NULL                -- the name without its layer prefix (ffn_down.weight)
);

-- Each (shape, type, size) once, with what follows from them.
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

-- One row per tensor of a data file, in primary-key order (file_id, name_id): about 18 bytes.
CREATE TABLE tensor_rows (
    file_id     INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    name_id     INTEGER NOT NULL REFERENCES tensor_names(name_id),
    layout_id   INTEGER NOT NULL REFERENCES tensor_layouts(layout_id),
    offset32    INTEGER NOT NULL,        -- the offset from the data start / 32 when a multiple of 32 (GGUF's default alignment: almost every tensor), else -1 - offset: 4 bytes where the offset takes 6
    info_to_data INTEGER NOT NULL,       -- files.data_start minus the byte offset of the descriptor in the file: 2 bytes where the offset takes 3
    PRIMARY KEY (file_id, name_id)
) WITHOUT ROWID;

-- Per model and tensor type, written by the crawl.
CREATE TABLE census (
    model_id        INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    type_id         INTEGER,             -- ggml type id; NULL for safetensors
    type_name       TEXT NOT NULL,
    tensors         INTEGER NOT NULL,
    params          INTEGER NOT NULL,    -- elements
    bytes           INTEGER NOT NULL,    -- measured
    bits_per_weight REAL,                -- bytes * 8 / params
    PRIMARY KEY (model_id, type_name)
) WITHOUT ROWID;
CREATE INDEX census_type ON census(type_id, type_name, tensors, params, bytes);  -- schema 21: type_rates reads it alone

-- Per model, tensor kind and type (schema 7): what policy_map and policy_deviations read, written by
-- the crawl. No rows for a model migrated from schema <= 6 until the next crawl re-reads its files.
-- Schema 18 keeps each distinct layer list once (layer_lists): the view policy_layers gives the rows
-- with their lists, as the table of that name did.
CREATE TABLE policy_rows (
    model_id    INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    tensor_kind TEXT NOT NULL,     -- tensors.kind
    type_id     INTEGER,           -- ggml type id; NULL for safetensors
    type_name   TEXT NOT NULL,
    tensors     INTEGER NOT NULL,  -- tensors of this kind and type
    layers_id   INTEGER REFERENCES layer_lists(layers_id),  -- their layers; NULL when none has a layer
    PRIMARY KEY (model_id, tensor_kind, type_name)
) WITHOUT ROWID;

-- Each distinct list of layers once ("0,1,2,3,6,10,13,16,19,21,24,27,28,29,30,31": a few hundred lists).
CREATE TABLE layer_lists (
    layers_id INTEGER PRIMARY KEY,
    layers    TEXT NOT NULL UNIQUE     -- ascending, comma-separated without spaces
);

-- Inputs that could not be catalogued.
CREATE TABLE errors (
    error_id  INTEGER PRIMARY KEY,
    crawl_id  INTEGER NOT NULL REFERENCES crawls(crawl_id),
    location  TEXT NOT NULL,
    offset    INTEGER,                   -- byte offset of the problem in the file, when known
    message   TEXT NOT NULL
);
CREATE INDEX errors_crawl ON errors(crawl_id);

-- What was accepted but flagged: duplicate key, size mismatch, unknown type id.
CREATE TABLE warnings (
    warning_id INTEGER PRIMARY KEY,
    crawl_id   INTEGER NOT NULL REFERENCES crawls(crawl_id),
    model_id   INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    location   TEXT NOT NULL,
    offset     INTEGER,                  -- byte offset of the problem in the file, when known
    message    TEXT NOT NULL
);
CREATE INDEX warnings_model ON warnings(model_id);

-- One row per model that was new, changed, failed or gone in a crawl (schema 4): the history
-- that `changes` reads (unchanged models are only counted in crawls).
CREATE TABLE model_events (
    event_id      INTEGER PRIMARY KEY,
    crawl_id      INTEGER NOT NULL REFERENCES crawls(crawl_id),
    location      TEXT NOT NULL,          -- the model's first file (gone: the file that vanished)
    event         TEXT NOT NULL CHECK (event IN ('new', 'changed', 'failed', 'gone')),
    file_bytes_before INTEGER,            -- NULL for new models
    file_bytes_after  INTEGER,            -- NULL for failed and gone
    policy_before TEXT,                   -- models.policy_hash before and after
    policy_after  TEXT,
    census_before TEXT,                   -- models.census before and after
    census_after  TEXT,
    message       TEXT,                   -- failed: the reason
    -- schema 19: what the digest (`modelcat changes`) says changed besides size, policy and census
    metadata_before TEXT,                 -- the data files' files.metadata_hash in shard order, comma-separated, before and after; NULL in events older than schema 19
    metadata_after  TEXT
);
CREATE INDEX model_events_crawl ON model_events(crawl_id);
CREATE INDEX model_events_location ON model_events(location, event_id);  -- a location's history (schema 19): failing since when

-- Would ggml's own GGUF reader read each GGUF data file (schema 9)? One row per reason it refuses
-- one; files.ggml_refusals counts them. The checks follow ggml/src/gguf.cpp
-- (gguf_init_from_reader) at ggml-org/ggml d99724f2b141fed9e1a9f402213506c081433465; README
-- "Security" lists them.
CREATE TABLE ggml_refusals (
    file_id  INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    model_id INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,  -- order of the reason within the file (ggml's order of checks)
    "check"  TEXT NOT NULL,     -- version, byte_order, duplicate_key, nested_array, name_length, duplicate_name, element_count, type_id, row_blocks, offset, data_size
    reason   TEXT NOT NULL,     -- what ggml refuses, with the key or tensor and the values
    PRIMARY KEY (file_id, seq)
);
CREATE INDEX ggml_refusals_model ON ggml_refusals(model_id);

-- How each store names the models it holds (schema 12): one row per name (a snapshot's file, an
-- Ollama tag's layer, an LM Studio file). Several names can lead to one model (two tags, two
-- snapshots sharing a blob): the blob is read once per crawl. Written after the crawl's models; a
-- name the store no longer has (a removed tag, a pruned snapshot) is marked gone, never deleted,
-- while the blob another name still uses stays.
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

-- What servers last announced of their request budgets (RateLimit / RateLimit-Policy, schema 13),
-- so that a crawl started before the window resets (a stopped crawl resumed, the next job of the
-- night) waits for it instead of drawing a 429.
CREATE TABLE rate_budgets (
    host      TEXT NOT NULL,     -- scheme://host:port the budget was announced for
    budget    TEXT NOT NULL,     -- its name (the Hub: api, resolvers)
    remaining INTEGER NOT NULL,  -- requests left in the window when the crawl ended
    resets_at REAL NOT NULL,     -- when the window resets: seconds since the epoch, plus the margin for a rounded-down t
    quota     INTEGER,           -- RateLimit-Policy q, when announced
    window_s  REAL,              -- RateLimit-Policy w, seconds
    crawl_id  INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- the crawl that was told
    PRIMARY KEY (host, budget)
);

-- What the Hub's models API last said of each repository a many-repository input lists (schema 17),
-- so that a night reads its pages, newest lastModified first, only down to repositories unchanged
-- since the crawl that last saw them, and lists the files of the changed ones only (docs/remote.md).
CREATE TABLE hub_repos (
    scope         TEXT NOT NULL,   -- the input that lists it, as given: hf://AUTHOR/* or hf-search:?filter=gguf&search=...
    repo          TEXT NOT NULL,   -- owner/name
    last_modified TEXT NOT NULL,   -- the models API's lastModified, as given (ISO 8601, UTC)
    sha           TEXT NOT NULL,   -- the models API's sha: the commit of the repository's main revision
    status        TEXT NOT NULL CHECK (status IN ('ok', 'pending', 'gone', 'left')),  -- ok: its files catalogued at that sha; pending: listed, but a file or its listing failed or the crawl stopped first: the next crawl lists it again whatever the API says; gone: a full listing no longer showed it and the Hub answered 404; left: a full listing no longer showed it but it exists (its files kept)
    first_crawl_id INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- the crawl that first listed it
    seen_crawl_id  INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- the last crawl whose pages showed it (an early-stopping listing shows only the newest)
    gone_crawl_id  INTEGER REFERENCES crawls(crawl_id),           -- the crawl that found it gone or left
    PRIMARY KEY (scope, repo)
);

-- Each many-repository input's last listing that read its pages down to where it could stop (schema 17).
CREATE TABLE hub_listings (
    scope           TEXT PRIMARY KEY,  -- hub_repos.scope
    newest          TEXT,              -- the newest lastModified that listing showed: below it (less an hour for the API's index to catch up) an unchanged repository ends the next night's pages; NULL when it showed none
    listed_crawl_id INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- that listing's crawl
    full_crawl_id   INTEGER REFERENCES crawls(crawl_id)            -- the last crawl that read every page (the first, --full-listing, or one a week): the one that notices deleted repositories
);

-- Which llama-quantize settings made each GGUF model (schema 14): its per-tensor types against a
-- replay of llama-quantize's type choice at one llama.cpp revision (src/model/quant_policy.hpp,
-- docs/recipes.md). One row per GGUF model, written by the crawl; a model migrated from schema <= 13
-- has none until the next crawl re-reads its files.
CREATE TABLE recipes (
    model_id     INTEGER PRIMARY KEY REFERENCES models(model_id) ON DELETE CASCADE,
    recipe       TEXT NOT NULL CHECK (recipe IN ('stock', 'stock+overrides', 'custom', 'relabelled', 'unknown')),
    quantized_as INTEGER,           -- the file type llama-quantize was given (file_type_names); NULL when unknown
    overrides    TEXT NOT NULL,     -- the options as typed, space-separated ('' for stock); relabelled adds --override-kv
    matching     INTEGER NOT NULL,  -- tensors whose type the declared type's stock replay predicts
    tensors      INTEGER NOT NULL,  -- tensors over all the model's data files
    revision     TEXT NOT NULL,     -- the llama.cpp commit replayed (12 hex digits), "(file order)" for a pre-2024-11 tensor order
    imatrix      INTEGER NOT NULL,  -- 1 when the file has quantize.imatrix.* keys (made with an importance matrix)
    differences  TEXT NOT NULL,     -- custom: JSON array of per-kind differences ("ffn_down: Q3_K on 32 of 32 layers (stock Q2_K: 0)"); else []
    why          TEXT NOT NULL,     -- the tensor kinds whose types differ from quantized_as's stock policy, then how made
    note         TEXT NOT NULL      -- unknown: why; else what the reading assumed, or ''
);

------------------------------------------------------------------------------------------------
-- Memory (schema 15): what llama.cpp allocates to run a model on its CPU backend, one sequence
-- (src/format/memory.hpp; docs/memory.md names the llama.cpp release it follows). The crawl
-- writes the terms from the header alone; every figure is arithmetic on them (queries/memory.sql).
-- No rows for a model migrated from schema <= 13 until the next crawl re-reads its files.

-- One row per catalogued model: whether its architecture is modelled and, when it is, its terms.
CREATE TABLE memory_terms (
    model_id INTEGER PRIMARY KEY REFERENCES models(model_id) ON DELETE CASCADE,
    basis    TEXT NOT NULL CHECK (basis IN ('modelled', 'not_modelled')),
    reason   TEXT,                     -- not_modelled: 'not modelled for ARCH', or what the header lacks; else NULL
    -- The rest is NULL when not modelled.
    ctx_train INTEGER,                 -- <arch>.context_length (0 when absent)
    n_layer   INTEGER,                 -- <arch>.block_count: the repeating layers
    weights_bytes INTEGER,             -- CPU_Mapped on an AVX2 CPU: the mapped span of the weights left in place
    repack_bytes  INTEGER,             -- CPU_REPACK on an AVX2 CPU: the matrices its kernels repack (Q4_0, IQ4_NL, MXFP4, Q4_K)
    layer_weight_bytes_max INTEGER,    -- the largest repeating layer's weights (blk.N.*)
    repeating_weight_bytes INTEGER,    -- all repeating layers' weights
    other_weight_bytes     INTEGER,    -- the weights outside them: embedding, output, norms
    recurrent_bytes INTEGER,           -- recurrent state (conv and SSM), which does not grow with the context
    output_bytes    INTEGER,           -- the output buffer: one row of logits (n_vocab f32)
    whole_blocks    INTEGER,           -- 1 when every K and V row is whole blocks of 32, as a q8_0 or q4_0 cache needs
    -- The compute buffer's terms, bytes per token of the micro-batch (scores: per token and cell).
    logits_per_token INTEGER,          -- logits and two hidden states
    attention_per_token INTEGER,       -- Q, K and V of every head and two hidden states
    scores_per_token_cell INTEGER,     -- the attention scores without flash attention: heads x f32
    layer_per_token INTEGER,           -- the larger of the FFN's (dense or the chosen experts') and the SSM's activations
    -- schema 22: what the context-dependent figures are arithmetic on (ctx_train, whole_blocks, the compute terms, each
    -- cache's kind, window and elements), as a key: equal key, equal KV cache and compute buffer at every setting, so
    -- memory and fits compute them once per shape. The crawl writes a 64-bit hash (hex, src/model/memory_terms.cpp);
    -- migration 22 wrote the JSON of those terms for the rows it found. NULL when not modelled.
    shape_key TEXT
);

-- One row per attention cache llama.cpp creates for a modelled model (none for a recurrent one).
CREATE TABLE memory_caches (
    model_id INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    cache    INTEGER NOT NULL,         -- 0, 1 in llama.cpp's order: the full (or MLA) cache, then the sliding one
    kind     TEXT NOT NULL CHECK (kind IN ('full', 'sliding', 'mla')),
    window   INTEGER NOT NULL,         -- sliding: <arch>.attention.sliding_window, tokens; else 0
    layers   INTEGER NOT NULL,         -- the layers it serves
    k_elements INTEGER NOT NULL,       -- K elements per cell, summed over its layers
    v_elements INTEGER NOT NULL,       -- V elements per cell (0 for MLA, whose V is a view of K)
    v_padded_elements INTEGER NOT NULL,  -- V per cell without flash attention: layers x the widest V row of any cache
    PRIMARY KEY (model_id, cache)
) WITHOUT ROWID;

------------------------------------------------------------------------------------------------
-- Conversion audits (`modelcat audit GGUF SOURCE`, schema 8): a GGUF's values compared tensor by
-- tensor with its source checkpoint's
------------------------------------------------------------------------------------------------

-- One audit run: what was compared and the totals. The per-tensor rows are in audit_tensors.
CREATE TABLE audits (
    audit_id         INTEGER PRIMARY KEY,
    gguf_location    TEXT NOT NULL,     -- the GGUF as given on the command line
    source_location  TEXT NOT NULL,     -- the checkpoint folder, index.json or .safetensors as given
    gguf_model_id    INTEGER REFERENCES models(model_id) ON DELETE SET NULL,  -- the GGUF's model when it is catalogued
    source_model_id  INTEGER REFERENCES models(model_id) ON DELETE SET NULL,  -- the checkpoint's model when catalogued
    started_at       TEXT NOT NULL,     -- ISO 8601
    finished_at      TEXT NOT NULL,     -- ISO 8601
    verdict          TEXT NOT NULL CHECK (verdict IN ('pass', 'fail')),  -- pass: every source tensor accounted for, every compared tensor passes
    source_tensors   INTEGER NOT NULL,  -- tensors in the checkpoint
    matched          INTEGER NOT NULL,  -- GGUF tensors paired with a source tensor (a tied output.weight counts)
    exact            INTEGER NOT NULL,  -- pairs equal bit for bit (after exact widening or round-to-nearest-even narrowing)
    within_tolerance INTEGER NOT NULL,  -- quantized pairs under their type's NMSE ceiling
    mismatched       INTEGER NOT NULL,  -- pairs that fail: values, shape, or not comparable
    unmatched_source INTEGER NOT NULL,  -- source tensors without a GGUF counterpart
    unmatched_gguf   INTEGER NOT NULL,  -- GGUF tensors without a source that are not known generated tensors
    generated_ok     INTEGER NOT NULL,  -- generated tensors (rope_freqs) matching config.json
    generated_bad    INTEGER NOT NULL,  -- generated tensors that do not match
    sample_rows      INTEGER NOT NULL,  -- rows compared per tensor; 0 = every row
    bytes_read       INTEGER NOT NULL,  -- bytes read from both sides, headers included
    seconds          REAL NOT NULL      -- wall time of the audit
);

-- One row per tensor of either side: a pair, a generated tensor, or an unmatched one.
CREATE TABLE audit_tensors (
    audit_id           INTEGER NOT NULL REFERENCES audits(audit_id) ON DELETE CASCADE,
    gguf_tensor        TEXT,             -- NULL for an unmatched source tensor
    source_tensor      TEXT,             -- NULL for generated and unmatched GGUF tensors
    gguf_type          TEXT,             -- ggml type name (BF16, Q4_K ...)
    source_dtype       TEXT,             -- safetensors dtype (BF16 ...)
    transform          TEXT,             -- what was applied to the source, comma-separated: permute_q, permute_k, tied, bf16->f32, bf16->q4_k ...
    verdict            TEXT NOT NULL CHECK (verdict IN ('exact', 'within_tolerance', 'mismatch', 'generated_ok',
                                 'generated_mismatch', 'generated_unchecked', 'unmatched_source', 'unmatched_gguf', 'not_compared')),
    elements           INTEGER NOT NULL, -- elements in the tensor
    compared           INTEGER NOT NULL, -- elements compared (fewer in sample mode; 0 when not comparable)
    mismatches         INTEGER NOT NULL, -- compared elements not bit-identical to the expected value
    first_mismatch_row INTEGER,          -- row of the source tensor of the first differing element (quantized: of the largest error) when it fails
    first_mismatch_col INTEGER,          -- its column (for a 1-D tensor: its index)
    max_abs_error      REAL,             -- largest |GGUF - source|
    rmse               REAL,             -- root mean square error
    nmse               REAL,             -- error energy / source signal energy
    cosine             REAL              -- cosine similarity of the two tensors
);
CREATE INDEX audit_tensors_audit ON audit_tensors(audit_id);

-- Schema 16: the metadata half of an audit, one row per GGUF key held against its source in the
-- checkpoint's config.json, generation_config.json, tokenizer.json, tokenizer_config.json and
-- tokenizer.model, by the converter's mapping (src/audit/converter_mapping.cpp).
CREATE TABLE audit_metadata (
    audit_id     INTEGER NOT NULL REFERENCES audits(audit_id) ON DELETE CASCADE,
    key          TEXT NOT NULL,     -- the GGUF key (llama.context_length), or rope_freqs.weight for what llama3 rope scaling became
    source_path  TEXT NOT NULL,     -- file:JSON path of the source value (config.json:rope_scaling.factor, tokenizer.json:model.merges)
    gguf_value   TEXT,              -- as shown: strings JSON-quoted, long values shortened (length given); NULL when the GGUF has none
    source_value TEXT,              -- the value the converter would have written, shown the same way; NULL when not known
    verdict      TEXT NOT NULL CHECK (verdict IN ('equal', 'converted', 'differs', 'missing', 'not_checked')),
    effect       TEXT NOT NULL CHECK (effect IN ('ok', 'warn', 'fail')),  -- fail: differs/missing on an EOS id, the chat template, rope scaling or the context length
    note         TEXT               -- the transformation (f64->f32), the first difference, or why not checked
);
CREATE INDEX audit_metadata_audit ON audit_metadata(audit_id);

------------------------------------------------------------------------------------------------
-- Reference tables: what the binary knows, written by every writable open (rows: see the top)
------------------------------------------------------------------------------------------------

-- The ggml type table the binary was built with (src/format/ggml_types.def).
CREATE TABLE ggml_types (
    type_id         INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    block_size      INTEGER NOT NULL,    -- elements per block
    type_size       INTEGER NOT NULL,    -- bytes per block
    bits_per_weight REAL NOT NULL        -- type_size * 8 / block_size
);

-- general.file_type (llama.cpp's llama_ftype) id -> name; `removed` ids may still appear in old files.
CREATE TABLE file_type_names (
    file_type INTEGER PRIMARY KEY,
    name      TEXT NOT NULL,           -- llama_ftype without the LLAMA_FTYPE_ prefix
    removed   INTEGER NOT NULL DEFAULT 0  -- 1 when llama.cpp no longer writes it
);

-- How a source checkpoint's tensor kinds are named in GGUF, per GGUF architecture: data, not
-- code, so another architecture is more rows. A layered kind maps model.layers.N.<source_kind>
-- to blk.N.<gguf_kind>; others map whole names. The reconcile report and `audit` read it.
CREATE TABLE tensor_name_map (
    architecture TEXT NOT NULL,        -- general.architecture of the GGUF side
    source_kind  TEXT NOT NULL,        -- tensors.kind on the safetensors side
    gguf_kind    TEXT NOT NULL,        -- tensors.kind on the GGUF side
    PRIMARY KEY (architecture, source_kind)
) WITHOUT ROWID;

------------------------------------------------------------------------------------------------
-- Views. They exist only here: migrating drops them and creates them from this file. Those
-- reading models' schema-7 and schema-12 columns leave out, or show NULL for, a model migrated
-- from an older schema until the next crawl re-reads it (files.reread).
------------------------------------------------------------------------------------------------

-- One row per tensor, as the table `tensors` was before schema 18 (the same columns and values): its
-- rows are tensor_rows with their names and layouts. A lookup by model_id or by (file_id, name) reads
-- only its rows. Writable through its triggers (below), for scripts that wrote it.
CREATE VIEW tensors AS
SELECT f.model_id, r.file_id, n.name, n.layer, n.kind, l.n_dims, l.dims, l.n_elements, l.type_id, l.type_name,
       iif(r.offset32 >= 0, r.offset32 * 32, -1 - r.offset32) AS offset,  -- relative to the data start
       l.bytes, l.expected_bytes,
       CASE WHEN l.n_elements <> 0 THEN l.bytes * 8.0 / l.n_elements END AS bits_per_weight,
       f.data_start - r.info_to_data AS info_offset  -- byte offset of the descriptor in the file
  FROM tensor_rows r
  JOIN files f ON f.file_id = r.file_id
  JOIN tensor_names n ON n.name_id = r.name_id
  JOIN tensor_layouts l ON l.layout_id = r.layout_id;

-- Writing `tensors` writes its parts: a new name or layout once, then the row (model_id and
-- bits_per_weight follow from the file and the sizes, so the values given for them are not kept).
CREATE TRIGGER tensors_insert INSTEAD OF INSERT ON tensors BEGIN
    INSERT INTO tensor_names (name, layer, kind) SELECT NEW.name, NEW.layer, NEW.kind
     WHERE NOT EXISTS (SELECT 1 FROM tensor_names WHERE name = NEW.name);
    INSERT INTO tensor_layouts (n_dims, dims, n_elements, type_id, type_name, expected_bytes, bytes)
    SELECT NEW.n_dims, NEW.dims, NEW.n_elements, NEW.type_id, NEW.type_name, NEW.expected_bytes, NEW.bytes
     WHERE NOT EXISTS (SELECT 1 FROM tensor_layouts WHERE dims = NEW.dims AND type_name = NEW.type_name
                          AND type_id IS NEW.type_id AND expected_bytes IS NEW.expected_bytes AND bytes = NEW.bytes);
    INSERT INTO tensor_rows (file_id, name_id, layout_id, offset32, info_to_data)
    VALUES (NEW.file_id, (SELECT name_id FROM tensor_names WHERE name = NEW.name),
            (SELECT layout_id FROM tensor_layouts WHERE dims = NEW.dims AND type_name = NEW.type_name
                AND type_id IS NEW.type_id AND expected_bytes IS NEW.expected_bytes AND bytes = NEW.bytes),
            iif(NEW.offset % 32 = 0, NEW.offset / 32, -1 - NEW.offset),
            (SELECT data_start FROM files WHERE file_id = NEW.file_id) - NEW.info_offset);
END;
CREATE TRIGGER tensors_delete INSTEAD OF DELETE ON tensors BEGIN
    DELETE FROM tensor_rows WHERE file_id = OLD.file_id AND name_id = (SELECT name_id FROM tensor_names WHERE name = OLD.name);
END;
CREATE TRIGGER tensors_update INSTEAD OF UPDATE ON tensors BEGIN
    DELETE FROM tensors WHERE file_id = OLD.file_id AND name = OLD.name;
    INSERT INTO tensors (model_id, file_id, name, layer, kind, n_dims, dims, n_elements, type_id, type_name, offset, bytes,
                         expected_bytes, bits_per_weight, info_offset)
    VALUES (NEW.model_id, NEW.file_id, NEW.name, NEW.layer, NEW.kind, NEW.n_dims, NEW.dims, NEW.n_elements, NEW.type_id,
            NEW.type_name, NEW.offset, NEW.bytes, NEW.expected_bytes, NEW.bits_per_weight, NEW.info_offset);
END;

-- Per model, tensor kind and type: how many tensors and on which layers (ascending, comma-separated
-- without spaces; NULL when none has a layer): the table of that name before schema 18.
CREATE VIEW policy_layers AS
SELECT p.model_id, p.tensor_kind, p.type_id, p.type_name, p.tensors, l.layers
  FROM policy_rows p LEFT JOIN layer_lists l ON l.layers_id = p.layers_id;

-- One row per model of every kind: the quant table (the quant_summary report shows kind = 'model'
-- unless asked). bits_per_weight = (file_bytes - header_bytes) * 8 / params, measured.
CREATE VIEW quant_summary AS
SELECT m.model_id, m.name, m.location, m.format, m.architecture, m.file_type,
       f.name AS file_type_name,                        -- file_type_names.name (MOSTLY_Q4_K_M); NULL when absent or unknown
       m.file_bytes, m.header_bytes, m.params,
       CASE WHEN m.params > 0 THEN (m.file_bytes - m.header_bytes) * 8.0 / m.params END AS bits_per_weight,  -- as models_rate
       m.tensor_count, m.kv_count,
       m.census,                                        -- 'type:count' pairs (GGUF: ggml type ids, '12:193 14:33 0:66'; safetensors: dtypes, 'BF16:291')
       m.kind                                           -- model, mmproj, adapter, imatrix, vocab, unknown
  FROM models m LEFT JOIN file_type_names f ON f.file_type = m.file_type;

-- Per model and type: tensors, parameters, measured bytes and rate.
CREATE VIEW type_census AS
SELECT c.model_id, c.type_id, c.type_name, c.tensors, c.params, c.bytes, c.bits_per_weight
  FROM census c;

-- Every tensor type seen in models (kind = 'model'): its rate from the ggml table and as measured.
-- The sums over every model (census_type alone) less those over the few of other kinds.
CREATE VIEW type_rates AS
WITH every AS (SELECT type_id, type_name, sum(tensors) AS tensors, sum(params) AS params, sum(bytes) AS bytes,
                      count(*) AS models  -- census has one row per model and type_name
                 FROM census GROUP BY type_id, type_name),
     other AS (SELECT c.type_id, c.type_name, sum(c.tensors) AS tensors, sum(c.params) AS params, sum(c.bytes) AS bytes,
                      count(*) AS models
                 FROM models m CROSS JOIN census c ON c.model_id = m.model_id  -- models_other_kinds first
                WHERE m.kind IS NOT 'model' GROUP BY c.type_id, c.type_name),
     model AS (SELECT e.type_id, e.type_name, e.tensors - coalesce(o.tensors, 0) AS tensors,
                      e.params - coalesce(o.params, 0) AS params, e.bytes - coalesce(o.bytes, 0) AS bytes,
                      e.models - coalesce(o.models, 0) AS models
                 FROM every e LEFT JOIN other o ON o.type_id IS e.type_id AND o.type_name = e.type_name)
SELECT t.type_id, t.type_name, g.bits_per_weight AS table_bits_per_weight,
       CASE WHEN t.params > 0 THEN t.bytes * 8.0 / t.params END AS measured_bits_per_weight,
       t.tensors, t.models
  FROM model t LEFT JOIN ggml_types g ON g.type_id = t.type_id
 WHERE t.models > 0
 ORDER BY t.type_id, t.type_name;

-- A model named by its model_id, its name, its first file's location, or a name its store gives it
-- (reports take any of these).
CREATE VIEW model_refs AS
SELECT CAST(model_id AS TEXT) AS ref, model_id FROM models
UNION ALL SELECT name, model_id FROM models
UNION ALL SELECT location, model_id FROM models
UNION ALL SELECT name, model_id FROM store_names WHERE role = 'model' AND status = 'ok' AND model_id IS NOT NULL;

-- Per model, tensor kind and type: how many tensors and on which layers (numeric order, no
-- spaces; NULL for tensors without a layer). The layer-by-layer policy (see policy_layers).
CREATE VIEW policy_map AS
SELECT model_id, tensor_kind, type_id, type_name, tensors, layers FROM policy_layers;

-- Each model's majority type: held by the most tensors, F32 excluded (ties: more parameters, lower id).
CREATE VIEW model_majority_type AS
SELECT model_id, majority_type_id AS type_id, majority_type_name AS type_name
  FROM models WHERE majority_type_name IS NOT NULL;

-- The tensors whose type is not the model's majority type (F32 excluded), by type and kind, in
-- models (kind = 'model'): what a quant "promoted" (the Llama 3.1 8B lineup: Q4_K_M keeps
-- ffn_down and attn_v at Q6_K on 16 layers).
CREATE VIEW policy_deviations AS
SELECT p.model_id, m.name, m.majority_type_name AS majority_type, p.type_id, p.type_name, p.tensor_kind, p.layers, p.tensors
  FROM policy_layers p
  JOIN models m USING (model_id)
 WHERE p.type_name <> m.majority_type_name AND p.type_name <> 'F32' AND m.kind = 'model';

-- Models (kind = 'model') of one architecture and block count that declare the same
-- general.file_type but quantize differently (the Llama 3.1 8B lineup: Q4_K_M and Q4_K_L are
-- both file_type 15). `why`: each member that is not stock, one per line, as "NAME: " and its
-- recipes.why ("token_embd: Q4_K→Q8_0; output: Q6_K→Q8_0 (--token-embedding-type q8_0
-- --output-tensor-type q8_0)"); NULL when every member is stock.
CREATE VIEW same_file_type_different_policy AS
WITH d AS (SELECT architecture, block_count, file_type FROM models  -- the groups, from models_policy_groups alone
            WHERE file_type IS NOT NULL AND kind = 'model'
            GROUP BY architecture, block_count, file_type HAVING count(DISTINCT policy_hash) > 1)
SELECT d.architecture, d.file_type, f.name AS file_type_name,
       count(*) AS models, count(DISTINCT m.policy_hash) AS policies,
       group_concat(m.model_id, ',') AS model_ids, group_concat(m.name, ',') AS names,
       group_concat(iif(r.why <> 'stock', m.name || ': ' || r.why, NULL), char(10)) AS why
  FROM d CROSS JOIN models m INDEXED BY models_policy_groups  -- each group's members in model_id order
       ON m.architecture IS d.architecture AND m.block_count IS d.block_count AND m.file_type = d.file_type
      AND m.file_type IS NOT NULL AND m.kind = 'model'
  LEFT JOIN recipes r ON r.model_id = m.model_id
  LEFT JOIN file_type_names f ON f.file_type = d.file_type
 GROUP BY d.architecture, d.block_count, d.file_type;

-- Identical content at several locations (mirrors, copies): same sha256 where known, else same
-- size and header hash.
CREATE VIEW duplicates AS
SELECT size, header_hash, sha256,
       count(*) AS location_count,                      -- how many files hold this content
       group_concat(location, char(10)) AS paths,       -- their locations, one per line
       group_concat(model_id, ',') AS model_ids
  FROM (SELECT f.size, f.header_hash, f.sha256, f.location, f.model_id  -- the members of groups found in the indexes alone
          FROM (SELECT sha256 FROM files WHERE status <> 'gone' AND header_hash IS NOT NULL AND role = 'data' AND sha256 IS NOT NULL
                 GROUP BY sha256 HAVING count(*) > 1) d
          JOIN files f ON f.sha256 = d.sha256 AND f.status <> 'gone' AND f.header_hash IS NOT NULL AND f.role = 'data'
        UNION ALL
        SELECT f.size, f.header_hash, f.sha256, f.location, f.model_id
          FROM (SELECT size, header_hash FROM files WHERE status <> 'gone' AND header_hash IS NOT NULL AND role = 'data' AND sha256 IS NULL
                 GROUP BY size, header_hash HAVING count(*) > 1) d
          JOIN files f ON f.size = d.size AND f.header_hash = d.header_hash AND f.status <> 'gone' AND f.role = 'data' AND f.sha256 IS NULL
        ORDER BY location)
 GROUP BY coalesce(sha256, size || ':' || header_hash);

-- Data files whose tensor index is identical (same names, types, shapes and offsets) but whose
-- metadata differs: a re-templated or re-tagged upload of the same weights, or (headers cannot
-- tell) another fine-tune with the same layout; `modelcat audit` compares values.
CREATE VIEW same_weights_different_metadata AS
SELECT tensor_index_hash, count(*) AS files, count(DISTINCT metadata_hash) AS metadata_variants,
       group_concat(location, char(10)) AS locations, group_concat(model_id, ',') AS model_ids
  FROM files INDEXED BY files_same_tensor_index  -- its order: by tensor index, then location
 WHERE role = 'data' AND status <> 'gone' AND tensor_count > 0 AND tensor_index_hash IS NOT NULL
 GROUP BY tensor_index_hash
HAVING count(DISTINCT metadata_hash) > 1;

-- One row per GGUF model: readable 1 when ggml reads all its data files, 0 when it refuses one,
-- NULL while a file migrated from schema <= 8 waits for the next crawl to re-read it; reasons:
-- every refusal, one per line, file order.
CREATE VIEW ggml_compat AS
SELECT m.model_id, m.name, m.location,
       CASE WHEN count(*) > count(f.ggml_refusals) THEN NULL
            WHEN sum(f.ggml_refusals) = 0 THEN 1 ELSE 0 END AS readable,
       (SELECT group_concat(reason, char(10))
          FROM (SELECT r.reason FROM ggml_refusals r JOIN files rf USING (file_id)
                 WHERE r.model_id = m.model_id ORDER BY rf.shard, r.seq)) AS reasons
  FROM models m CROSS JOIN files f ON f.model_id = m.model_id AND f.role = 'data'
 WHERE +m.format = 'gguf'  -- models in id order, not by models_format_size: each groups as it comes (100,000: 0.15 s, not 0.38)
 GROUP BY m.model_id;

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

-- Memory at a glance: tensor bytes as measured, and from the memory terms whether the model is
-- modelled and its f16 KV cache per cell (token of context) of the full and the sliding caches.
CREATE VIEW model_memory AS
SELECT m.model_id, m.name, m.kind, m.architecture, m.params,
       (SELECT sum(c.bytes) FROM census c WHERE c.model_id = m.model_id) AS tensor_bytes,
       t.basis, t.reason, t.ctx_train,
       (SELECT sum(2 * (k_elements + v_elements)) FROM memory_caches c WHERE c.model_id = m.model_id AND c.kind <> 'sliding') AS kv_f16_bytes_per_cell,
       (SELECT sum(2 * (k_elements + v_elements)) FROM memory_caches c WHERE c.model_id = m.model_id AND c.kind = 'sliding') AS sliding_kv_f16_bytes_per_cell,
       (SELECT window FROM memory_caches c WHERE c.model_id = m.model_id AND c.kind = 'sliding') AS sliding_window
  FROM models m LEFT JOIN memory_terms t ON t.model_id = m.model_id;

-- A store's model and what its manifest links to it (an Ollama tag's projector and adapter).
CREATE VIEW store_links AS
SELECT s.store, s.name, s.model_id, l.role, l.model_id AS linked_model_id
  FROM store_names s JOIN store_names l ON l.store = s.store AND l.root = s.root AND l.name = s.name AND l.role <> 'model'
 WHERE s.role = 'model' AND s.status = 'ok' AND l.status = 'ok';

-- The multimodal projectors found beside a store's model, in its HF snapshot, its Ollama tag or its LM
-- Studio folder (the same store, root, repo and revision), and their tensors' bytes: the memory and
-- fits reports' projector term (llama.cpp loads the projector's weights beside the model's).
CREATE VIEW model_projectors AS
SELECT DISTINCT s.model_id, p.model_id AS projector_model_id, p.name AS projector_name,
       (SELECT sum(c.bytes) FROM census c WHERE c.model_id = p.model_id) AS projector_bytes
  FROM models p
  JOIN store_names l ON l.model_id = p.model_id AND l.status = 'ok'
  JOIN store_names s ON s.store = l.store AND s.root = l.root AND s.repo IS l.repo AND s.revision IS l.revision
 WHERE p.kind = 'mmproj' AND s.role = 'model' AND s.status = 'ok' AND s.model_id IS NOT NULL AND s.model_id <> p.model_id;

PRAGMA user_version = 23;
