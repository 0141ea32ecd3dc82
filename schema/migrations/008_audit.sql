-- Brings a schema-7 catalogue to 8: conversion audits (`modelcat audit GGUF SOURCE`).
CREATE TABLE audits (
    audit_id         INTEGER PRIMARY KEY,
    gguf_location    TEXT NOT NULL,
    source_location  TEXT NOT NULL,
    gguf_model_id    INTEGER REFERENCES models(model_id) ON DELETE SET NULL,
    source_model_id  INTEGER REFERENCES models(model_id) ON DELETE SET NULL,
    started_at       TEXT NOT NULL,
    finished_at      TEXT NOT NULL,
    verdict          TEXT NOT NULL CHECK (verdict IN ('pass', 'fail')),
    source_tensors   INTEGER NOT NULL,
    matched          INTEGER NOT NULL,
    exact            INTEGER NOT NULL,
    within_tolerance INTEGER NOT NULL,
    mismatched       INTEGER NOT NULL,
    unmatched_source INTEGER NOT NULL,
    unmatched_gguf   INTEGER NOT NULL,
    generated_ok     INTEGER NOT NULL,
    generated_bad    INTEGER NOT NULL,
    sample_rows      INTEGER NOT NULL,
    bytes_read       INTEGER NOT NULL,
    seconds          REAL NOT NULL
);
CREATE TABLE audit_tensors (
    audit_id           INTEGER NOT NULL REFERENCES audits(audit_id) ON DELETE CASCADE,
    gguf_tensor        TEXT,
    source_tensor      TEXT,
    gguf_type          TEXT,
    source_dtype       TEXT,
    transform          TEXT,
    verdict            TEXT NOT NULL CHECK (verdict IN ('exact', 'within_tolerance', 'mismatch', 'generated_ok',
                                 'generated_mismatch', 'generated_unchecked', 'unmatched_source', 'unmatched_gguf', 'not_compared')),
    elements           INTEGER NOT NULL,
    compared           INTEGER NOT NULL,
    mismatches         INTEGER NOT NULL,
    first_mismatch_row INTEGER,
    first_mismatch_col INTEGER,
    max_abs_error      REAL,
    rmse               REAL,
    nmse               REAL,
    cosine             REAL
);
CREATE INDEX audit_tensors_audit ON audit_tensors(audit_id);
