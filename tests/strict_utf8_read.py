#!/usr/bin/env python3
"""Reads every TEXT value of every table and view of a modelcat catalogue
through a strict UTF-8 decoder, then every row as Python's sqlite3 returns
text by default. Prints the counts; exits 1 listing any value that is not
valid UTF-8 (or any table the default reader cannot read)."""
import sqlite3
import sys


def main(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.text_factory = bytes
    names = [r[0].decode() for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")]
    cells = bad = 0
    for name in names:
        cols = [r[1].decode() for r in con.execute(f'PRAGMA table_info("{name}")')]
        for col in cols:
            for (v,) in con.execute(f'SELECT "{col}" FROM "{name}" WHERE typeof("{col}") = \'text\''):
                cells += 1
                try:
                    v.decode("utf-8", "strict")
                except UnicodeDecodeError as e:
                    bad += 1
                    print(f"{name}.{col}: {v[:100]!r}: {e}", file=sys.stderr)
    con.text_factory = str
    for name in names:
        try:
            con.execute(f'SELECT * FROM "{name}"').fetchall()
        except sqlite3.OperationalError as e:
            bad += 1
            print(f"{name}: {e}", file=sys.stderr)
    print(f"{len(names)} tables and views, {cells} text values, {bad} not valid UTF-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
