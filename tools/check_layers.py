#!/usr/bin/env python3
"""The layering check (ctest's `layers`): src/'s folders are libraries in one order, each
including only those below it, with no include cycle between files or folders; SQL's
library (SQLiteCpp, sqlite3.h, SQLite:: names) is used by src/catalog/ alone.

Usage: check_layers.py SRC_DIR. Prints each breach and exits 1, or prints a summary and exits 0.
"""
import os
import re
import sys

# The floor first; a folder may include its own files and those of the folders before it.
ORDER = ["model", "format", "io", "locate", "catalog", "crawl", "audit", "report", "cli"]
SQL_HEADERS = re.compile(r'^\s*#\s*include\s*[<"](SQLiteCpp/|sqlite3\.h)', re.M)
SQL_NAMES = re.compile(r'\bSQLite::|\bsqlite3_')  # a connection or statement handled outside catalog/
LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def sources(src):
    for folder, _, names in os.walk(src):
        for name in sorted(names):
            if name.endswith((".hpp", ".cpp", ".def")):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, src).replace(os.sep, "/"), path


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(100000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(src):
    problems = []
    files = dict(sources(src))
    folders = {rel.split("/")[0] for rel in files if "/" in rel}
    for f in sorted(folders - set(ORDER)):
        problems.append(f"src/{f}/ is not in the layer order ({', '.join(ORDER)}): add it to tools/check_layers.py")
    rank = {name: i for i, name in enumerate(ORDER)}
    file_graph, folder_graph = {}, {}
    for rel, path in files.items():
        text = open(path, encoding="utf-8", errors="replace").read()
        folder = rel.split("/")[0]
        code = re.sub(r"//[^\n]*", "", text)
        if folder != "catalog" and (SQL_HEADERS.search(text) or SQL_NAMES.search(code)):
            problems.append(f"src/{rel} uses SQLite: only src/catalog/ holds SQL (through catalog::Writer and catalog::Reader)")
        # a header and its .cpp are one unit: a.cpp including a.hpp is no edge
        unit = os.path.splitext(rel)[0]
        for target in LOCAL_INCLUDE.findall(text):
            if target not in files:
                continue
            to_folder = target.split("/")[0]
            if folder in rank and to_folder in rank and rank[to_folder] > rank[folder]:
                problems.append(f"src/{rel} includes {target}: {to_folder}/ is above {folder}/")
            to_unit = os.path.splitext(target)[0]
            if to_unit != unit:
                file_graph.setdefault(unit, set()).add(to_unit)
            if to_folder != folder:
                folder_graph.setdefault(folder, set()).add(to_folder)
    for c in cycles(file_graph):
        problems.append("include cycle between files: " + " -> ".join(c))
    for c in cycles(folder_graph):
        problems.append("include cycle between folders: " + " -> ".join(c))
    for p in problems:
        print(p)
    if problems:
        return 1
    edges = sum(len(v) for v in file_graph.values())
    print(f"layers ok: {len(files)} files in {len(folders)} folders, {edges} includes between files, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "src"))
