#!/usr/bin/env bash
# Local crawl benchmark: the 8-quant Llama 3.1 8B lineup (sparse replicas with
# real-size 7.8 MB headers) plus the bundled real samples, crawled into a fresh
# catalogue RUNS times; then the lineup alone against antirez's gguf-tools `show`
# over the same eight files (when GGUF_TOOLS names its binary), the two run in
# turn so that both see the same load. Wall and CPU (user + sys) times, medians.
# BEFORE=path/to/an/older/modelcat times that build in the same turns (BEFORE_NAME: what to call it, e.g. its commit).
# Writes bench/RESULTS-local.md.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-9}
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DMODELCAT_TESTS=OFF >/dev/null
cmake --build build-bench -j2 --target modelcat modelcat-samples >/dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
build-bench/modelcat-samples "$work/lineup" >/dev/null
mkdir "$work/empty"
cat "$work"/lineup/*.gguf >/dev/null  # headers into the page cache (the data is a hole)

# Appends "wall cpu" (s, to the millisecond: the lineup takes tens of them) of one command to the file $1.
timed() {
    local out=$1; shift
    local TIMEFORMAT='%3R %3U %3S' rc=0
    { time "$@" >/dev/null 2>"$work/err" || rc=$?; } 2>"$work/t"
    if [ "$rc" != 0 ]; then cat "$work/err" >&2; exit 1; fi
    awk '{printf "%s %.3f\n", $1, $2 + $3}' "$work/t" >>"$out"
}
# Appends the times of one crawl by the modelcat $2 into a fresh catalogue to the file $1.
crawl() {
    rm -f "$work/c.db"*
    timed "$1" "$2" crawl --quiet --db "$work/c.db" "${@:3}"
}
# "median wall s (CPU s)" of the runs in $1, and every wall time.
median() { sort -g "$1" | awk '{w[NR] = $1; c[NR] = $2} END {m = int((NR + 1) / 2); printf "%s s (CPU %s s)", w[m], c[m]}'; }
walls() { sort -g "$1" | cut -d' ' -f1 | tr '\n' ' '; }
median_wall() { sort -g "$1" | awk '{w[NR] = $1} END {print w[int((NR + 1) / 2)]}'; }

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq "$RUNS"); do
    crawl "$work/all" build-bench/modelcat "$work/lineup" samples/real
    if [ -n "${BEFORE:-}" ]; then crawl "$work/all-before" "$BEFORE" "$work/lineup" samples/real; fi
    crawl "$work/lineup-mc" build-bench/modelcat "$work/lineup"
    # a new catalogue and nothing to crawl: what creating the schema costs, with the process around it
    crawl "$work/new" build-bench/modelcat "$work/empty"
    if [ -n "${BEFORE:-}" ]; then crawl "$work/new-before" "$BEFORE" "$work/empty"; fi
    # the same into a catalogue created beforehand: the crawl without creating the schema
    rm -f "$work/c.db"*; build-bench/modelcat crawl --quiet --db "$work/c.db" "$work/empty" 2>/dev/null
    timed "$work/lineup-existing" build-bench/modelcat crawl --quiet --db "$work/c.db" "$work/lineup"
    if [ -n "${BEFORE:-}" ]; then crawl "$work/lineup-before" "$BEFORE" "$work/lineup"; fi
    if [ -n "${GGUF_TOOLS:-}" ]; then
        timed "$work/lineup-gt" sh -c 'for f in "$1"/*.gguf; do "$0" show "$f" >/dev/null; done' "$GGUF_TOOLS" "$work/lineup"
    fi
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
rm -f "$work/c.db"*
build-bench/modelcat crawl --db "$work/c.db" "$work/lineup" samples/real 2>"$work/summary" >/dev/null  # not --quiet: its summary line
summary=$(tail -n1 "$work/summary")
read -r headers bytes reads < <(sqlite3 -separator ' ' "$work/c.db" "SELECT sum(header_bytes), sum(bytes_read), sum(requests) FROM files")
q4=$(sqlite3 -separator ' ' "$work/c.db" "SELECT header_bytes, bytes_read, requests FROM files WHERE location LIKE '%-Q4_K_M.gguf'")
{
    echo "# Local crawl benchmark"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(lscpu | sed -nE 's/^Model name: +//p')), Release build of" \
         "$(git log -1 --format=%h) (build-bench), by \`bench/local.sh\` (RUNS=$RUNS, each a fresh catalogue; page cache warm)," \
         "load average $load_start at the start, $load_end at the end (the machine is shared: CPU times are the steadier figure)."
    echo "Earlier runs are in git history: \`git log -p -- bench/RESULTS-local.md\`."
    echo "Input: 8 sparse Llama 3.1 8B quant replicas (7,840,928-byte headers, 40.2 GB apparent) + the real samples in samples/real."
    echo
    echo "| what | median wall (CPU) | all wall times (s) |"
    echo "|---|---|---|"
    echo "| \`modelcat crawl\` of the lineup and the samples | $(median "$work/all") | $(walls "$work/all") |"
    if [ -n "${BEFORE:-}" ]; then echo "| the same, before (${BEFORE_NAME:-\`$BEFORE\`}) | $(median "$work/all-before") | $(walls "$work/all-before") |"; fi
    echo "| \`modelcat crawl\` of the 8 lineup files | $(median "$work/lineup-mc") | $(walls "$work/lineup-mc") |"
    echo "| the same into an existing empty catalogue | $(median "$work/lineup-existing") | $(walls "$work/lineup-existing") |"
    if [ -n "${BEFORE:-}" ]; then echo "| the same, before | $(median "$work/lineup-before") | $(walls "$work/lineup-before") |"; fi
    echo "| \`modelcat crawl\` of an empty folder into a new catalogue | $(median "$work/new") | $(walls "$work/new") |"
    if [ -n "${BEFORE:-}" ]; then echo "| the same, before | $(median "$work/new-before") | $(walls "$work/new-before") |"; fi
    if [ -n "${GGUF_TOOLS:-}" ]; then
        echo "| \`gguf-tools show\` on each of the 8 files ($GGUF_TOOLS) | $(median "$work/lineup-gt") | $(walls "$work/lineup-gt") |"
        echo "| ratio, modelcat crawl / gguf-tools show (median wall) | $(echo "scale=2; $(median_wall "$work/lineup-mc") / $(median_wall "$work/lineup-gt")" | bc) | |"
        echo "| the same ratio, into an existing catalogue | $(echo "scale=2; $(median_wall "$work/lineup-existing") / $(median_wall "$work/lineup-gt")" | bc) | |"
        if [ -n "${BEFORE:-}" ]; then echo "| the same ratio before | $(echo "scale=2; $(median_wall "$work/lineup-before") / $(median_wall "$work/lineup-gt")" | bc) | |"; fi
    fi
    echo
    echo "- header bytes catalogued: $headers; bytes read: $bytes in $reads reads ($(echo "scale=4; $bytes / $headers" | bc) ×)"
    echo "- the Q4_K_M file: header $(echo "$q4" | cut -d' ' -f1) bytes, read as $(echo "$q4" | cut -d' ' -f2) in $(echo "$q4" | cut -d' ' -f3) reads"
    echo "- crawl summary: $summary"
} >bench/RESULTS-local.md
cat bench/RESULTS-local.md
