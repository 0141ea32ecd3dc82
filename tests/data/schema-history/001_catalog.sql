-- modelcat catalogue, schema version 1: the tables.
-- These names and columns are public API: users write SQL against them.
-- Sizes are bytes, counts are plain integers, offsets are byte positions.

-- One run of `modelcat crawl`.
CREATE TABLE crawls (
    crawl_id     INTEGER PRIMARY KEY,
    started_at   TEXT NOT NULL,          -- UTC, ISO 8601
    finished_at  TEXT,                   -- NULL while running or if the crawl was killed
    inputs       TEXT NOT NULL,          -- JSON array of the inputs as given
    files_ok     INTEGER NOT NULL DEFAULT 0,  -- files catalogued
    files_failed INTEGER NOT NULL DEFAULT 0,  -- files recorded in errors
    tensors      INTEGER NOT NULL DEFAULT 0,  -- tensor rows written
    bytes_read   INTEGER NOT NULL DEFAULT 0,  -- header bytes actually read, all files
    requests     INTEGER NOT NULL DEFAULT 0,  -- reads issued (local reads or HTTP requests)
    seconds      REAL                         -- wall time of the crawl
);

-- One catalogued artifact: a GGUF file, a split GGUF set, or a safetensors
-- checkpoint. Re-crawling the same location replaces its rows, keeping model_id.
CREATE TABLE models (
    model_id     INTEGER PRIMARY KEY,
    location     TEXT NOT NULL UNIQUE,   -- the model's first data file: absolute path as given, or URL
    name         TEXT NOT NULL,          -- file stem; checkpoint folder; owner/repo for Hub URLs
    format       TEXT NOT NULL CHECK (format IN ('gguf', 'safetensors')),
    architecture TEXT,                   -- general.architecture (GGUF) or config.json model_type; NULL when absent
    file_type    INTEGER,                -- general.file_type (llama_ftype id); NULL when absent
    tensor_count INTEGER NOT NULL,       -- tensors over all files
    kv_count     INTEGER NOT NULL,       -- distinct metadata keys over the data files
    params       INTEGER NOT NULL,       -- sum of tensor elements
    file_bytes   INTEGER NOT NULL,       -- sum of the data files' sizes (not index or config)
    header_bytes INTEGER NOT NULL,       -- sum of the data files' header bytes
    policy_hash  TEXT,                   -- 64-bit hash of the sorted (tensor name, type) list: equal hash = same quantization policy
    shape_hash   TEXT,                   -- layer-free policy: 64-bit hash of the sorted (kind, type, tensors) list
    crawl_id     INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- crawl that last wrote it
    updated_at   TEXT NOT NULL           -- UTC time it was last written
);

-- One physical file of a model.
CREATE TABLE files (
    file_id      INTEGER PRIMARY KEY,
    model_id     INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    location     TEXT NOT NULL UNIQUE,   -- absolute path as given (symlinks not resolved), or URL
    role         TEXT NOT NULL DEFAULT 'data' CHECK (role IN ('data', 'index', 'config')),  -- data: holds tensors; index: model.safetensors.index.json; config: config.json
    shard        INTEGER NOT NULL DEFAULT 0,  -- 0-based position among the model's data files
    format       TEXT NOT NULL CHECK (format IN ('gguf', 'safetensors', 'json')),
    version      INTEGER,                -- GGUF version 1-3; NULL otherwise
    endianness   TEXT,                   -- little | big; NULL for JSON files
    size         INTEGER NOT NULL,       -- file size
    header_bytes INTEGER NOT NULL,       -- bytes before tensor data (GGUF: aligned data start clamped to size; safetensors: 8 + header length; JSON: size)
    data_start   INTEGER NOT NULL,       -- where tensor data starts (GGUF: may exceed size in vocab-only files)
    alignment    INTEGER,                -- GGUF alignment used (general.alignment or 32)
    kv_count     INTEGER NOT NULL,       -- GGUF kv_count as declared (duplicates included); safetensors __metadata__ entries
    tensor_count INTEGER NOT NULL,       -- tensors in this file
    bytes_read   INTEGER NOT NULL,       -- bytes actually read to catalogue the file
    requests     INTEGER NOT NULL,       -- reads issued for it
    read_ms      REAL NOT NULL,          -- time spent reading and parsing its header
    mtime_ns     INTEGER,                -- local files: modification time, ns since the epoch
    status       TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'stale', 'gone')),  -- ok; stale = last read failed, rows are from before
    last_error   TEXT,                   -- message of the last failed read, if stale
    crawl_id     INTEGER NOT NULL REFERENCES crawls(crawl_id)   -- crawl that last read it
);
CREATE INDEX files_model ON files(model_id);

-- Metadata: GGUF key/values, safetensors __metadata__ strings.
CREATE TABLE metadata (
    model_id     INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    file_id      INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    value_type   TEXT NOT NULL,          -- uint8 int8 uint16 int16 uint32 int32 float32 bool string array uint64 int64 float64
    value        ANY,                    -- native SQLite value; arrays: JSON of the values when array_length <= 64, else NULL
    array_type   TEXT,                   -- element type of an array
    array_length INTEGER,                -- element count of an array
    array_bytes  INTEGER,                -- encoded size of the array's elements in the file
    array_hash   TEXT,                   -- 64-bit content hash (hex) of the array's canonical encoding: equal hash = identical content
    offset       INTEGER NOT NULL,       -- byte offset of the key in the file
    PRIMARY KEY (file_id, key)
) WITHOUT ROWID;
CREATE INDEX metadata_key ON metadata(key);

-- Tensor descriptors, with sizes measured from the offsets.
CREATE TABLE tensors (
    model_id       INTEGER NOT NULL REFERENCES models(model_id) ON DELETE CASCADE,
    file_id        INTEGER NOT NULL REFERENCES files(file_id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    layer          INTEGER,              -- N of blk.N. / model.layers.N.; NULL otherwise
    kind           TEXT NOT NULL,        -- the name without its layer prefix (ffn_down.weight)
    n_dims         INTEGER NOT NULL,
    dims           TEXT NOT NULL,        -- JSON array in the file's own order (GGUF ne[0] first)
    n_elements     INTEGER NOT NULL,
    type_id        INTEGER,              -- ggml type id (GGUF); NULL for safetensors
    type_name      TEXT NOT NULL,        -- Q4_K, BF16, ...; type_<id> for ids ggml does not define
    offset         INTEGER NOT NULL,     -- relative to the data start
    bytes          INTEGER NOT NULL,     -- measured: gap to the next tensor (last: to the end of the file)
    expected_bytes INTEGER,              -- from the type table; NULL for unknown types
    bits_per_weight REAL,                -- bytes * 8 / n_elements; NULL for empty tensors
    info_offset    INTEGER NOT NULL,     -- byte offset of the descriptor in the file
    PRIMARY KEY (file_id, name)
) WITHOUT ROWID;
CREATE INDEX tensors_model ON tensors(model_id, type_name);

-- Per model and tensor type, written at crawl time.
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
    offset     INTEGER,
    message    TEXT NOT NULL
);
CREATE INDEX warnings_model ON warnings(model_id);

-- The ggml type table the tool was built with (filled by the tool).
CREATE TABLE ggml_types (
    type_id         INTEGER PRIMARY KEY,
    name            TEXT NOT NULL,
    block_size      INTEGER NOT NULL,    -- elements per block
    type_size       INTEGER NOT NULL,    -- bytes per block
    bits_per_weight REAL NOT NULL        -- type_size * 8 / block_size
);
