#!/usr/bin/env bash
# The catalogue at scale: generates the zoo (modelcat-zoo, Release build), crawls it
# into a fresh catalogue, re-crawls it unchanged, times every view and every bundled
# report, accounts the catalogue's bytes (dbstat), and writes bench/RESULTS-scale.md.
#
#   bench/scale.sh [--models N] [--label after|before|...] [--modelcat BIN] [--queries DIR] [--build DIR]
#   bench/scale.sh --assemble      (only rewrite RESULTS-scale.md from the recorded labels and notes)
#
# --label L with --modelcat and --queries from an older checkout records that build in
# bench/scale-L.{md,tsv}; RESULTS-scale.md sets every label's numbers side by side (before
# first, after last). The first crawl and the re-crawl each run $CRAWL_RUNS times (default 3,
# the median by wall time is reported, every run listed with its CPU time and load average).
# Scratch (zoo, catalogues) lives in $SCALE_WORK (default /tmp/modelcat-scale). --build DIR takes
# modelcat and modelcat-zoo from an existing Release build instead of configuring build-rel.
# Every timing is noted with the 1-minute load average when it began (the machine is shared).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
models=10000
label=after
modelcat=""
build=""
queries=$root/queries
assemble_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --models) models=$2; shift 2 ;;
        --label) label=$2; shift 2 ;;
        --modelcat) modelcat=$2; shift 2 ;;
        --queries) queries=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --assemble) assemble_only=1; shift ;;
        *) echo "usage: $0 [--models N] [--label after|before] [--modelcat BIN] [--queries DIR] [--build DIR] [--assemble]" >&2; exit 2 ;;
    esac
done
# RESULTS-scale.md: every label's timings side by side, then each label's notes.
assemble() {
    all=$(ls "$root"/bench/scale-*.tsv | sed -E 's/.*scale-(.*)\.tsv/\1/')
    # bench/scale-order lists the labels in the table's order (else: before first, after last)
    if [ -f "$root/bench/scale-order" ]; then labels=$(grep -x -F "$all" "$root/bench/scale-order")
    else labels=$(echo "$all" | grep -x before; echo "$all" | grep -v -x -e before -e after | sort; echo "$all" | grep -x after); fi
    last=$(echo "$labels" | tail -1)
    {
        echo "# The catalogue at scale (\`bench/scale.sh\`)"
        echo
        echo "Times in ms, wall (CPU = user + sys) and the 1-minute load average when the timing began: views as \`SELECT count(*) FROM (SELECT * FROM V)\`"
        echo "(which skips the columns a count does not need), from dec02-final on also every row written out and the first 50 rows"
        echo "(and \`tensors\` as documented, one model's rows), reports as bundled (their whole output, written to /dev/null) and their first page"
        echo "(\`modelcat query --limit 50 -f csv\`, timed by bash with the process's start), the others each in a fresh sqlite3 process timed by its"
        echo "\`.timer\` (the run of median wall time of 3; one run when it took over 2 s); from dec02-close on also \`fits\` and \`memory\`'s"
        echo "first 50 rows with the models' shape keys dealt out to 1,000-10,000 keys (in sqlite3, in a transaction rolled back); crawls as"
        echo "\`modelcat crawl --quiet\` under /usr/bin/time. The machine is shared: wall times grow with the load"
        echo "average noted under each label, CPU times less, but they too (one crawl's CPU time moved by 45 % within an hour on December 2)."
        echo
        printf '| item |'; for l in $labels; do printf ' %s |' "$l"; done; echo
        printf '|---|'; for l in $labels; do printf -- '---:|'; done; echo
        cut -f1 "$root/bench/scale-$last.tsv" | while read -r item; do
            printf '| %s |' "$item"
            for l in $labels; do printf ' %s |' "$(awk -F'\t' -v k="$item" '$1 == k {printf "%.0f (%.0f)%s", $2, $3, ($4 == "" ? "" : " @" $4)}' "$root/bench/scale-$l.tsv")"; done
            echo
        done
        for l in $labels; do echo; cat "$root/bench/scale-$l.md"; done
        [ -f "$root/bench/scale-notes.md" ] && { echo; cat "$root/bench/scale-notes.md"; }
    } >"$root/bench/RESULTS-scale.md"
    echo "wrote $root/bench/RESULTS-scale.md" >&2
}
if [ "$assemble_only" = 1 ]; then assemble; exit 0; fi

work=${SCALE_WORK:-/tmp/modelcat-scale}
mkdir -p "$work"

if [ -z "$build" ]; then
    build=$root/build-rel
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

db=$work/$label.db
rm -f "$db" "$db-wal" "$db-shm"
tsv=$root/bench/scale-$label.tsv
md=$root/bench/scale-$label.md
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
    echo "### $label"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') (load average $load_before at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end) on $(nproc) cores ($(lscpu | sed -nE 's/^Model name: +//p'))," \
         "$(free -g | awk '/^Mem:/ {print $2}') GiB RAM, SQLite $(sqlite3 --version | cut -d' ' -f1), binary $modelcat, reports from $queries (script at $(cd "$root" && git log -1 --format=%h))."
    echo
    echo "- zoo: $zoo_counts; $(du -sh "$zoo" | cut -f1) on disk ($(du -sh --apparent-size "$zoo" | cut -f1) apparent)," \
         "generated in $(printf "%.1f" "$(cat "$zoo/.seconds")") s"
    echo "- first crawl (fresh catalogue, page cache warm): **${crawl1_s} s, $(echo "scale=0; $n_models / $crawl1_s" | bc) models/s** (CPU ${crawl1_cpu} s: $(echo "scale=0; $n_models / $crawl1_cpu" | bc) models per CPU second), peak RSS $((crawl1_rss / 1024)) MB; median of $crawl_runs: $(list_runs <"$work/first.txt")"
    echo "- unchanged re-crawl: **${crawl2_s} s** (CPU ${crawl2_cpu} s; $unchanged files unchanged), peak RSS $((crawl2_rss / 1024)) MB; median of $crawl_runs: $(list_runs <"$work/again.txt")"
    echo "- catalogue: $n_models models, $n_tensors tensor rows, $db_bytes bytes = **$(echo "$db_bytes / $n_tensors" | bc) bytes per tensor row**"
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

assemble
