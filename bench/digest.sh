#!/usr/bin/env bash
# The nightly digest at scale: a catalogue whose history (model_events) is 30 nights over
# 100,000 models (every model new the first night; then each night the same 1,000 files fail
# again and 500 others, at random, are re-quantized), written by Python's sqlite3 into the
# schema `modelcat schema` prints; then `modelcat changes --since` over one night, a week, 29
# nights and the whole history, each run 3 times (the median wall time, and the peak RSS).
# Writes bench/RESULTS-digest.md.
#
#   bench/digest.sh [--modelcat BIN]     (default build/modelcat; scratch in $DIGEST_WORK, default /tmp/modelcat-digest)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
modelcat=$root/build/modelcat
[ "${1:-}" = "--modelcat" ] && modelcat=$2
work=${DIGEST_WORK:-/tmp/modelcat-digest}
mkdir -p "$work"
db=$work/history.db
rm -f "$db" "$db-wal" "$db-shm"
"$modelcat" schema > "$work/schema.sql"

python3 - "$db" "$work/schema.sql" <<'EOF'
import datetime, random, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript(open(sys.argv[2]).read())
random.seed(1)
models, nights = 100_000, 30
start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=nights - 1)
loc = "/srv/mirror/model-{:06d}-Q4_K_M.gguf".format
events = []
for night in range(1, nights + 1):
    ts = (start + datetime.timedelta(days=night - 1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    db.execute("INSERT INTO crawls (crawl_id, started_at, finished_at, inputs) VALUES (?, ?, ?, '[]')", (night, ts, ts))
    if night == 1:
        events += [(1, loc(i), "new", None, 4920739232, None, "a1", None, "12:193 14:33 0:66", None, None, "m1") for i in range(models)]
        continue
    events += [(night, loc(i), "failed", None, None, None, None, None, None, "truncated: 1 of 2 bytes", None, None) for i in range(1000)]
    events += [(night, loc(i), "changed", 4920739232, 4920739300, "a1", "a2", "12:193 14:33 0:66", "12:192 14:34 0:66", None, "m1", "m2")
               for i in random.sample(range(1000, models), 500)]
db.executemany("INSERT INTO model_events (crawl_id, location, event, file_bytes_before, file_bytes_after, policy_before,"
               " policy_after, census_before, census_after, message, metadata_before, metadata_after)"
               " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", events)
db.commit()
print(len(events), "events")
EOF

out=$root/bench/RESULTS-digest.md
{
    echo "# The nightly digest at scale"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`bench/digest.sh\` on $(nproc) cores ($(lscpu | sed -nE 's/^Model name: +//p')), $("$modelcat" --version | head -n1), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."
    echo "Earlier runs are in git history: \`git log -p -- bench/RESULTS-digest.md\`."
    echo "History: 100,000 models over 30 nights: all new the first night, then each night the same 1,000 files"
    echo "failing again and 500 others re-quantized ($(sqlite3 "$db" 'SELECT count(*) FROM model_events') rows of model_events)."
    echo "Each \`modelcat changes --db history.db --since SPEC\` run 3 times: the median wall time, the peak RSS."
    echo
    echo "| --since | crawls | digest lines | headline | wall (s) | peak RSS (MB) |"
    echo "|---|---|---|---|---|---|"
} > "$out"
for spec in last 7d 2 1; do
    times=()
    for run in 1 2 3; do
        /usr/bin/time -f "%e %M" -o "$work/time" "$modelcat" changes --db "$db" --since "$spec" > "$work/digest.txt"
        times+=("$(cat "$work/time")")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
    span=$(sed -n 2p "$work/digest.txt" | cut -d, -f1)
    printf '| `%s` | %s | %s | %s | %s | %.1f |\n' "$spec" "$span" "$(wc -l < "$work/digest.txt")" "$(head -n1 "$work/digest.txt")" \
        "${median% *}" "$(echo "${median#* } / 1024" | bc -l)" >> "$out"
done
cat "$out"
