#!/usr/bin/env bash
# The catalogue at scale: generates the zoo (modelcat-zoo, Release build), crawls it
# into a fresh catalogue, re-crawls it unchanged, times every view and every bundled
# report, accounts the catalogue's bytes (dbstat), and writes bench/RESULTS-scale.md.
#
#   bench/scale.sh [--models N] [--modelcat BIN] [--queries DIR] [--build DIR] [--against FILE.tsv] [--out FILE.md]
#
# RESULTS-scale.md is one current page: a table with a column per zoo size (10,000 and 100,000
# models) and a section per size (date, host, load, commit, the crawl, the catalogue's bytes). A
# run at N models replaces N's column and section and keeps the other sizes' as the page had them
# (read back from its table). Earlier pages are in git history (git log -p -- bench/RESULTS-scale.md).
# Each run also leaves its raw figures in $SCALE_WORK/scale-N.tsv (item, wall ms, CPU ms, load).
# To compare builds: run the older one first (--modelcat and --queries from its checkout, --out
# elsewhere so the page stays), copy its scale-N.tsv aside, then run this build with --against
# that copy: the page gets a column of its figures beside N's (the next run drops it).
#   bench/scale.sh --modelcat OLD/build/modelcat --queries OLD/queries --out /tmp/old.md
#   cp /tmp/modelcat-scale/scale-10000.tsv /tmp/old.tsv; bench/scale.sh --against /tmp/old.tsv
# The first crawl and the re-crawl each run $CRAWL_RUNS times (default 3, the median by wall time
# is reported, every run listed with its CPU time and load average). Scratch (zoo, catalogues)
# lives in $SCALE_WORK (default /tmp/modelcat-scale). --build DIR takes modelcat and modelcat-zoo
# from an existing Release build instead of configuring build-bench/.
# Every timing is noted with the 1-minute load average when it began (the machine is shared).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
models=10000
modelcat=""
build=""
queries=$root/queries
against=""
out=$root/bench/RESULTS-scale.md
while [ $# -gt 0 ]; do
    case "$1" in
        --models) models=$2; shift 2 ;;
        --modelcat) modelcat=$2; shift 2 ;;
        --queries) queries=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --against) against=$(realpath "$2"); shift 2 ;;
        --out) out=$(realpath -m "$2"); shift 2 ;;
        *) echo "usage: $0 [--models N] [--modelcat BIN] [--queries DIR] [--build DIR] [--against FILE.tsv] [--out FILE.md]" >&2; exit 2 ;;
    esac
done
[ -z "$against" ] || [ -f "$against" ] || { echo "bench/scale.sh: --against $against: no such file" >&2; exit 2; }

work=${SCALE_WORK:-/tmp/modelcat-scale}
mkdir -p "$work"

if [ -z "$build" ]; then
    build=$root/build-bench
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMODELCAT_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target modelcat modelcat-zoo >/dev/null
fi
modelcat=${modelcat:-$build/modelcat}

# The zoo is deterministic: regenerate only when the size asked for changes.
zoo=$work/zoo
if [ "$(cat "$zoo/.models" 2>/dev/null)" != "$models" ]; then
    rm -rf "$zoo"
    start=$(date +%s.%N)
    zoo_counts=$("$build/modelcat-zoo" "$zoo" --models "$models")
    echo "$zoo_counts" >"$zoo/.counts"
    echo "$(echo "$(date +%s.%N) - $start" | bc)" >"$zoo/.seconds"
    echo "$models" >"$zoo/.models"
fi
zoo_counts=$(cat "$zoo/.counts")
echo "zoo: $zoo_counts" >&2

db=$work/scale-$models.db
rm -f "$db" "$db-wal" "$db-shm"
tsv=$work/scale-$models.tsv
md=$work/scale-$models.md
: >"$tsv"

# Wall seconds, CPU seconds (user + sys), peak RSS (KB) and the 1-minute load average before one crawl;
# its JSON summary to $work/crawl.json.
crawl() {
    local load
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$modelcat" crawl --db "$db" --quiet --json-summary "$zoo" \
        >"$work/crawl.json" 2>"$work/crawl.err" || { cat "$work/crawl.err" >&2; exit 1; }
    awk -v l="$load" '{print $1, $2 + $3, $4, l}' "$work/time.txt"
}
# The run with the median wall time of the lines on stdin ("wall cpu rss load").
median_run() { sort -g | awk '{r[NR] = $0} END {print r[int((NR + 1) / 2)]}'; }
# "31.2 s (CPU 29.8 s, load 2.1)" for each run.
list_runs() { awk '{printf "%s%s s (CPU %s s, load %s)", (NR > 1 ? ", " : ""), $1, $2, $4}'; }
crawl_runs=${CRAWL_RUNS:-3}
sync
find "$zoo" -type f -print0 | xargs -0 -n 200 head -q -c 131072 >/dev/null  # headers into the page cache (data is a hole)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$work/first.txt"
for i in $(seq "$crawl_runs"); do
    rm -f "$db" "$db-wal" "$db-shm"
    crawl >>"$work/first.txt"
done
: >"$work/again.txt"
for i in $(seq "$crawl_runs"); do crawl >>"$work/again.txt"; done
read -r crawl1_s crawl1_cpu crawl1_rss crawl1_load < <(median_run <"$work/first.txt")
read -r crawl2_s crawl2_cpu crawl2_rss crawl2_load < <(median_run <"$work/again.txt")
unchanged=$(sed -E 's/.*"files_unchanged": ([0-9]+).*/\1/' "$work/crawl.json")
sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
n_models=$(sqlite3 "$db" 'SELECT count(*) FROM models')
n_tensors=$(sqlite3 "$db" 'SELECT count(*) FROM tensors')
db_bytes=$(stat -c %s "$db")
printf 'crawl\t%s\t%s\t%s\nrecrawl\t%s\t%s\t%s\n' "$(echo "$crawl1_s * 1000" | bc)" "$(echo "$crawl1_cpu * 1000" | bc)" "$crawl1_load" \
    "$(echo "$crawl2_s * 1000" | bc)" "$(echo "$crawl2_cpu * 1000" | bc)" "$crawl2_load" >>"$tsv"

# Wall and CPU (user + sys) ms of SQL with parameters, and the load average before it, each a fresh
# sqlite3 process as a user's one-liner is: the run with the median wall time of three (one run when
# the first takes over 2 s).
time_sql() {
    local params=$1 sql=$2 runs=() t load
    for i in 1 2 3; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        t=$(printf '%s\n.timer on\n.once /dev/null\n%s\n' "$params" "$sql" | sqlite3 "$db" |
            sed -nE 's/^Run Time: real ([0-9.]+) user ([0-9.]+) sys ([0-9.]+)/\1 \2 \3/p' | tail -1 |
            awk -v l="$load" '{printf "%.1f\t%.1f\t%s\n", $1 * 1000, ($2 + $3) * 1000, l}')
        runs+=("$t")
        if [ "$i" = 1 ] && [ "$(echo "${t%%$'\t'*} > 2000" | bc)" = 1 ]; then echo "$t"; return; fi
    done
    printf '%s\n' "${runs[@]}" | sort -g | sed -n 2p
}

# Models from the middle of the catalogue: a GGUF quant, two quants of its family,
# and a checkpoint with its F16 conversion.
mid=$(sqlite3 "$db" "SELECT model_id FROM models WHERE format = 'gguf' ORDER BY model_id LIMIT 1 OFFSET $n_models / 2")
mid_family=$(sqlite3 "$db" "SELECT substr(name, 1, length(name) - 7) FROM models WHERE model_id = $mid")
read -r diff_a diff_b < <(sqlite3 -separator ' ' "$db" "SELECT (SELECT model_id FROM models WHERE name LIKE '$mid_family%' AND name LIKE '%Q4_K_M' ORDER BY model_id LIMIT 1), (SELECT model_id FROM models WHERE name LIKE '$mid_family%' AND name LIKE '%Q6_K' ORDER BY model_id LIMIT 1)")
read -r rec_source rec_gguf < <(sqlite3 -separator ' ' "$db" "SELECT s.model_id, g.model_id FROM models s JOIN models g ON g.name = s.name || '-F16' WHERE s.format = 'safetensors' ORDER BY s.model_id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM models WHERE format = 'safetensors')")

declare -A report_params=(
    [policy]=".param set :model $mid"
    [diff]=".param set :a $diff_a
.param set :b $diff_b"
    [diff_metadata]=".param set :a $diff_a
.param set :b $diff_b"
    [reconcile]=".param set :gguf $rec_gguf
.param set :source $rec_source"
    [fits]=".param set :vram 24GiB"
)
# Each view three ways: counted (SQLite leaves out the columns a count does not need), every row and
# column written out (to /dev/null), and its first 50 rows (a listing's page).
for view in $(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name"); do
    printf 'view %s\t%s\n' "$view" "$(time_sql "" "SELECT count(*) FROM (SELECT * FROM $view);")" >>"$tsv"
    [ "$view" = tensors ] ||  # every tensor of the catalogue: its count above, one model's rows below
        printf 'view %s, every row\t%s\n' "$view" "$(time_sql "" "SELECT * FROM $view;")" >>"$tsv"
    printf 'view %s, first 50 rows\t%s\n' "$view" "$(time_sql "" "SELECT * FROM $view LIMIT 50;")" >>"$tsv"
done
# The tensors view as the schema documents it: one model's tensors (the view counted whole is above).
printf 'view tensors, one model\t%s\n' "$(time_sql "" "SELECT name, type_name, dims, bytes FROM tensors WHERE model_id = $mid;")" >>"$tsv"
for f in "$queries"/*.sql; do
    name=$(basename "$f" .sql)
    printf 'report %s\t%s\n' "$name" "$(time_sql "${report_params[$name]:-}" "$(cat "$f")")" >>"$tsv"
done
# A page: each report's first 50 rows as `modelcat query --limit 50` prints them (csv, to /dev/null; the
# process's start included): at once when its rows stream, else after the sort that orders them. Wall and
# CPU ms and the load average, the run of median wall time of three.
time_page() {
    local f=$1 params=$2 runs=() load t
    for i in 1 2 3; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        # shellcheck disable=SC2086  # one -p per parameter
        t=$( { TIMEFORMAT='%R %U %S'; time "$modelcat" query --db "$db" "$f" $params --limit 50 -f csv >/dev/null 2>"$work/page.err"; } 2>&1) ||
            { echo "bench/scale.sh: the first page of $f failed, its cell left empty: $(grep -v 'more follow' "$work/page.err")" >&2; return 0; }
        runs+=("$(echo "$t" | awk -v l="$load" '{printf "%.1f\t%.1f\t%s\n", $1 * 1000, ($2 + $3) * 1000, l}')")
    done
    printf '%s\n' "${runs[@]}" | sort -g | sed -n 2p
}
for f in "$queries"/*.sql; do
    name=$(basename "$f" .sql)
    params=$(echo "${report_params[$name]:-}" | sed -nE 's/^\.param set :([a-z_]+) (.*)$/-p \1=\2/p' | tr '\n' ' ')
    printf 'first 50 rows: %s\t%s\n' "$name" "$(time_page "$f" "$params")" >>"$tsv"
done

# fits and memory compute their figures once per shape (memory_terms.shape_key), and the zoo's families share a few
# shapes where a catalogue of many families has many more: their first 50 rows (in sqlite3, the query alone, the median of three)
# with each shape's models dealt out among more keys, in a transaction rolled back. Equal terms under different keys
# cost what different shapes would: the figures are computed per key from its first model's terms.
zoo_shapes=$(sqlite3 "$db" 'SELECT count(DISTINCT shape_key) FROM memory_terms')
# The sqlite3 script: the parameters, the keys dealt out $1 ways and counted, the report $2 three times, rolled back.
spread_script() {
    local sql
    sql=$(sed '$ s/;[[:space:]]*$//' "$queries/$2.sql")
    printf '%s\nBEGIN;\n' "${report_params[$2]:-}"
    printf "UPDATE memory_terms SET shape_key = shape_key || '/' || (model_id %% %d) WHERE shape_key IS NOT NULL;\n" "$1"
    printf 'SELECT count(DISTINCT shape_key) FROM memory_terms;\n.timer on\n'
    for i in 1 2 3; do printf '.once /dev/null\nSELECT * FROM (%s\n) LIMIT 50;\n' "$sql"; done
    printf '.timer off\nROLLBACK;\n'
}
spread=""
for target in 1000 2000 5000 10000; do
    ways=$(( (target + zoo_shapes - 1) / zoo_shapes ))
    for name in fits memory; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        out=$(spread_script "$ways" "$name" | sqlite3 "$db")
        shapes=$(echo "$out" | head -1)
        printf 'first 50 rows in sqlite3: %s, %s shapes\t%s\n' "$name" "$target" "$(echo "$out" |
            sed -nE 's/^Run Time: real ([0-9.]+) user ([0-9.]+) sys ([0-9.]+)/\1 \2 \3/p' | sort -g | sed -n 2p |
            awk -v l="$load" '{printf "%.1f\t%.1f\t%s\n", $1 * 1000, ($2 + $3) * 1000, l}')" >>"$tsv"
    done
    spread="$spread${spread:+, }$target: $shapes"
done

# What the catalogue's bytes are: pages per table and index.
dbstat=$(sqlite3 -separator ' | ' "$db" "SELECT name, sum(pgsize), round(100.0 * sum(pgsize) / (SELECT sum(pgsize) FROM dbstat), 1)
                                          FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 10")

per_row=$(sqlite3 -separator ' ' "$db" "SELECT group_concat(name || ' ' || printf('%.1f', b * 1.0 / $n_tensors), ', ')
                                        FROM (SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 8)")
slowest=$(grep -E '^(view|report)' "$tsv" | sort -t$'\t' -k2 -g | tail -1 | cut -f1,2)
{
    echo "## $models models"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') (load average $load_before at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end) on $(nproc) cores ($(lscpu | sed -nE 's/^Model name: +//p'))," \
         "$(free -g | awk '/^Mem:/ {print $2}') GiB RAM, SQLite $(sqlite3 --version | cut -d' ' -f1), binary $modelcat ($("$modelcat" --version 2>/dev/null | head -2 | paste -sd, - | sed 's/,/, /' || echo 'no --version')), reports from $queries (script at $(cd "$root" && git log -1 --format=%h))."
    echo
    echo "- zoo: $zoo_counts; $(du -sh "$zoo" | cut -f1) on disk ($(du -sh --apparent-size "$zoo" | cut -f1) apparent)," \
         "generated in $(printf "%.1f" "$(cat "$zoo/.seconds")") s"
    echo "- first crawl (fresh catalogue, page cache warm): **${crawl1_s} s, $(echo "scale=0; $n_models / $crawl1_s" | bc) models/s** (CPU ${crawl1_cpu} s: $(echo "scale=0; $n_models / $crawl1_cpu" | bc) models per CPU second), peak RSS $((crawl1_rss / 1024)) MB; median of $crawl_runs: $(list_runs <"$work/first.txt")"
    echo "- unchanged re-crawl: **${crawl2_s} s** (CPU ${crawl2_cpu} s; $unchanged files unchanged), peak RSS $((crawl2_rss / 1024)) MB; median of $crawl_runs: $(list_runs <"$work/again.txt")"
    echo "- catalogue: $n_models models, $n_tensors tensor rows, $db_bytes bytes = **$(echo "scale=2; $db_bytes / $n_tensors" | bc) bytes per tensor row**"
    echo "- per tensor row, by what holds it (dbstat bytes / tensor rows): $per_row"
    echo "- slowest view or report: ${slowest/$'\t'/ at } ms"
    echo "- report parameters: policy model=$mid; diff and diff_metadata a=$diff_a b=$diff_b; reconcile gguf=$rec_gguf source=$rec_source; fits vram=24GiB"
    echo "- fits and memory over more shapes: the zoo's $zoo_shapes shape keys dealt out to (asked: measured) $spread"
    echo
    echo "Pages by table and index (dbstat): name | bytes | %"
    echo
    echo '```'
    echo "$dbstat"
    echo '```'
} >"$md"

# The page: this run's column and section replace those of its size; the other sizes' stay as the
# page had them; --against FILE.tsv adds that file's figures as a column beside this run's.
python3 - "$out" "$models" "$tsv" "$md" "$against" <<'EOF'
import os, re, sys
out, models, tsv, md, against = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
INTRO = """# The catalogue at scale (`bench/scale.sh`)

Times in ms: wall (CPU = user + sys) @ the 1-minute load average when the timing began. Views
three ways: counted (`SELECT count(*) FROM (SELECT * FROM V)`, which skips the columns a count does
not need), every row written out, and the first 50 rows (`tensors`: counted, its first 50 rows and
one model's rows, as documented). Reports as bundled (their whole output, to /dev/null) and their
first page (`modelcat query --limit 50 -f csv`, timed by bash with the process's start); the others
each in a fresh sqlite3 process timed by its `.timer` (the run of median wall time of 3; one run when
it took over 2 s). `fits` and `memory`'s first 50 rows also with the models' shape keys dealt out to
1,000-10,000 keys (in sqlite3, in a transaction rolled back). Crawls as `modelcat crawl --quiet`
under /usr/bin/time. The machine is shared: wall times grow with the load average noted, CPU times
less, but they too. What these figures justify is in [docs/performance.md](../docs/performance.md).

Earlier runs are in git history: `git log -p -- bench/RESULTS-scale.md`; the dated runs of December
1-2 (labels `before` to `dec02-close-100k`, each build's figures side by side, and their notes) in
`git show 9c9c466:bench/RESULTS-scale.md` and `git show 9c9c466:bench/scale-notes.md`.
"""
def fmt(n): return f"{n:,} models"
def cell(wall, cpu, load): return f"{float(wall):.0f} ({float(cpu):.0f})" + (f" @{load}" if load else "")
def read_tsv(path):
    rows = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 3: rows[f[0]] = cell(f[1], f[2], f[3] if len(f) > 3 else "")
    return rows
columns, sections, items = {}, {}, []  # size -> {item: cell}; size -> section text
if os.path.exists(out):
    text = open(out).read()
    lines = text.split("\n")
    header = None
    for line in lines:
        if line.startswith("| item |"):
            header = [c.strip() for c in line.strip("|").split("|")]
        elif header and line.startswith("| ") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            items.append(cells[0])
            for name, c in zip(header[1:], cells[1:]):
                m = re.fullmatch(r"([\d,]+) models", name)
                if m and c: columns.setdefault(int(m.group(1).replace(",", "")), {})[cells[0]] = c
        elif header and not line.startswith("|"):
            header = None
    for m in re.finditer(r"^## ([\d,]+) models\n.*?(?=^## |\Z)", text, re.S | re.M):
        sections[int(m.group(1).replace(",", ""))] = m.group(0).rstrip("\n") + "\n"
run = read_tsv(tsv)
columns[models] = run
sections[models] = re.sub(r"^## .*", "## " + fmt(models), open(md).read(), count=1).rstrip("\n") + "\n"
order = list(run) + [i for i in items if i not in run]
sizes = sorted(columns)
heads = [fmt(n) for n in sizes]
extra = read_tsv(against) if against else None
if extra is not None:
    heads.append(f"against {os.path.basename(against)}")
    order += [i for i in extra if i not in order]
with open(out, "w") as f:
    f.write(INTRO + "\n")
    f.write("| item | " + " | ".join(heads) + " |\n|---|" + "---:|" * len(heads) + "\n")
    for item in order:
        cells = [columns[n].get(item, "") for n in sizes] + ([extra.get(item, "")] if extra is not None else [])
        f.write(f"| {item} | " + " | ".join(cells) + " |\n")
    for n in sizes:
        if n in sections: f.write("\n" + sections[n])
print(f"wrote {out}", file=sys.stderr)
EOF
