#!/usr/bin/env python3
"""Grows a catalogue into a synthetic zoo for the HTML report benchmark: every
model whose name is LIKE PATTERN is copied COPIES times under new names
(zoo-K-<name>), new locations and file sizes K MiB larger, with its files,
metadata, tensors and census rows. Usage: copy_models.py DB PATTERN COPIES"""
import sqlite3
import sys


def columns(db, table):
    return [r[1] for r in db.execute(f"PRAGMA table_info({table})")]


def copy_rows(db, table, key, old, replace):
    cols = columns(db, table)
    select = ", ".join(replace.get(c, c) for c in cols)
    db.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {select} FROM {table} WHERE {key} = ?", (old,))


def main():
    path, pattern, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    db = sqlite3.connect(path)
    models = [r[0] for r in db.execute("SELECT model_id FROM models WHERE name LIKE ? ORDER BY model_id", (pattern,))]
    for k in range(1, copies + 1):
        for mid in models:
            copy_rows(db, "models", "model_id", mid, {
                "model_id": "NULL", "name": f"'zoo-{k}-' || name", "location": f"location || '#{k}'",
                "file_bytes": f"file_bytes + {k} * 1048576"})
            new_mid = db.execute("SELECT last_insert_rowid()").fetchone()[0]
            copy_rows(db, "census", "model_id", mid, {"model_id": str(new_mid)})
            for (fid,) in db.execute("SELECT file_id FROM files WHERE model_id = ?", (mid,)).fetchall():
                copy_rows(db, "files", "file_id", fid, {"file_id": "NULL", "model_id": str(new_mid),
                                                        "location": f"location || '#{k}'"})
                new_fid = db.execute("SELECT last_insert_rowid()").fetchone()[0]
                for table in ("metadata", "tensors"):
                    copy_rows(db, table, "file_id", fid, {"model_id": str(new_mid), "file_id": str(new_fid)})
        db.commit()
    print(db.execute("SELECT count(*) FROM models").fetchone()[0], "models")


if __name__ == "__main__":
    main()
