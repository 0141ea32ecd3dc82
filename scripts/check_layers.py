#!/usr/bin/env python3
"""The layering check (ctest's `layers`): src/'s folders are libraries in one order, each
including only those below it, with no include cycle between files or folders; SQL's
library (SQLiteCpp, sqlite3.h, SQLite:: names) is used by src/catalog/ alone.

Usage: check_layers.py SRC_DIR prints each breach and exits 1, or prints a summary and exits 0;
check_layers.py --self-test shows on small trees that each kind of breach is caught.
"""
import os
import re
import sys

# The floor first; a folder may include its own files and those of the folders before it.
ORDER = ["model", "quantize", "format", "memory", "dequant", "io", "locate", "catalog", "crawl", "audit", "report", "cli"]
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


def breaches(src):
    problems = []
    files = dict(sources(src))
    folders = {rel.split("/")[0] for rel in files if "/" in rel}
    for f in sorted(folders - set(ORDER)):
        problems.append(f"src/{f}/ is not in the layer order ({', '.join(ORDER)}): add it to scripts/check_layers.py")
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
    edges = sum(len(v) for v in file_graph.values())
    return problems, f"layers ok: {len(files)} files in {len(folders)} folders, {edges} includes between files, no cycle"


def main(src):
    problems, summary = breaches(src)
    for p in problems:
        print(p)
    print(summary if not problems else f"{len(problems)} layering breaches")
    return 1 if problems else 0


def self_test():
    """Each kind of breach, planted in a tree of its own, is reported; the clean tree passes."""
    import tempfile
    clean = {"model/a.hpp": "", "model/a.cpp": '#include "model/a.hpp"\n', "crawl/b.cpp": '#include "model/a.hpp"\n',
             "catalog/c.cpp": "#include <SQLiteCpp/Database.h>\n"}
    cases = {
        "is above": {"model/up.hpp": '#include "crawl/b.hpp"\n', "crawl/b.hpp": ""},
        "include cycle between files": {"io/x.hpp": '#include "io/y.hpp"\n', "io/y.hpp": '#include "io/x.hpp"\n'},
        "include cycle between folders": {"zz/p.hpp": '#include "yy/q.hpp"\n', "yy/q.hpp": '#include "zz/p.hpp"\n'},
        "uses SQLite": {"cli/s.cpp": "void f(SQLite::Database& db);\n"},
        "is not in the layer order": {"extra/e.hpp": ""},
    }
    failed = 0
    for expected, planted in [(None, {})] + list(cases.items()):
        with tempfile.TemporaryDirectory() as d:
            for rel, text in {**clean, **planted}.items():
                os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
                open(os.path.join(d, rel), "w").write(text)
            problems, _ = breaches(d)
            ok = not problems if expected is None else any(expected in p for p in problems)
            if not ok:
                failed += 1
                print(f"self-test: expected {expected or 'no breach'}, got {problems}")
    print("self-test ok" if not failed else f"self-test: {failed} cases wrong")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "src"))
