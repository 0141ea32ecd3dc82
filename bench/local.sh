#!/usr/bin/env bash
# Local crawl benchmark: the 8-quant Llama 3.1 8B lineup (sparse replicas with
# real-size 7.8 MB headers) plus the bundled real samples, crawled into a
# fresh catalogue RUNS times. Writes bench/RESULTS-local.md.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target modelcat modelcat-samples >/dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
build/modelcat-samples "$work/lineup" >/dev/null
times=()
for i in $(seq "$RUNS"); do
  rm -f "$work/c.db"*
  t0=$(date +%s.%N)
  build/modelcat crawl --quiet --db "$work/c.db" "$work/lineup" samples/real 2>"$work/summary"
  t1=$(date +%s.%N)
  times+=("$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}")")
done
summary=$(tail -n1 "$work/summary")
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")
headers=$(sqlite3 "$work/c.db" "select sum(header_bytes) from files")
{
  echo "# Local crawl benchmark"
  echo
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores, Release build, by \`bench/local.sh\` (RUNS=$RUNS)."
  echo "Input: 8 sparse Llama 3.1 8B quant replicas (7,840,928-byte headers, 40.2 GB apparent) + 5 small real files."
  echo
  echo "| what | value |"
  echo "|---|---|"
  echo "| wall time per crawl, median of $RUNS (fresh catalogue each) | ${median} s |"
  echo "| all runs (s) | $(echo "$sorted" | tr '\n' ' ') |"
  echo "| header bytes catalogued | ${headers} |"
  echo "| crawl summary | ${summary} |"
} > bench/RESULTS-local.md
cat bench/RESULTS-local.md
