#!/usr/bin/env bash
# Conversion audit benchmark: a generated Llama-3-style checkpoint of real
# pseudo-random BF16 values (>= 2 GB) and its BF16, Q8_0 and Q4_K conversions,
# audited from page cache. Throughput is GGUF tensor data per second; peak RSS
# from /usr/bin/time; sample mode's bytes and requests from the audit itself.
# Writes bench/RESULTS-audit.md. DIR keeps the generated pair between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-/tmp/modelcat-audit-bench}
JOBS=${JOBS:-2}
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DMODELCAT_TESTS=OFF >/dev/null
cmake --build build-bench -j2 --target modelcat modelcat-audit-pair modelcat-samples >/dev/null
shape="--layers 5 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 32000"
[ -f "$DIR/Q4_K.gguf" ] || build-bench/modelcat-audit-pair "$DIR" $shape --quants
# The 8B-class layout for sample mode's cost: Llama 3.1 8B's BF16 checkpoint and its BF16 GGUF as
# sparse replicas (every size, shape and offset real, the values zero, so rope_freqs fails).
[ -f "$DIR/8b/Meta-Llama-3.1-8B-Instruct-BF16.gguf" ] || build-bench/modelcat-samples "$DIR/8b" --checkpoint >/dev/null
db=$(mktemp -u /tmp/audit-bench-XXXX.db); trap 'rm -f "$db"*' EXIT
cat "$DIR"/checkpoint/*.safetensors "$DIR"/*.gguf >/dev/null  # page cache
row() {  # GGUF name, extra flags, checkpoint folder
  local out; out=$( { /usr/bin/time -f "rss_kb %M cpu %U %S" build-bench/modelcat audit --db "$db" --jobs "$JOBS" $2 \
        "$DIR/$1.gguf" "${3:-$DIR/checkpoint}"; } 2>&1 ) || true  # exit 1 (a failed audit) still has figures
  local verdict rss cpu bytes secs gguf
  verdict=$(echo "$out" | awk '/^Verdict/{print $2}')
  rss=$(echo "$out" | awk '/^rss_kb/{printf "%.0f", $2/1024}')
  cpu=$(echo "$out" | awk '/^rss_kb/{printf "%.2f", $4 + $5}')
  bytes=$(echo "$out" | sed -n 's/.*read \([0-9]*\) bytes in \([0-9]*\) requests, \([0-9.e+-]*\) s/\1 \2 \3/p')
  secs=$(echo "$bytes" | cut -d' ' -f3)
  gguf=$(stat -c %s "$DIR/$1.gguf")
  awk -v n="$1${2:+ $2}" -v v="$verdict" -v g="$gguf" -v s="$secs" -v r="$rss" -v b="$bytes" -v c="$cpu" 'BEGIN{
    split(b, f, " "); printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %.0f | %s |\n",
      n, v, g/1e9, s, g/1e9/s, c, g/1e9/c, r, f[1]/1e6, f[2]}'
}
{
  echo "# Conversion audit benchmark"
  echo
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores (shared with other jobs: load average $(cut -d' ' -f1 /proc/loadavg)),"
  echo "Release build, by \`bench/audit.sh\` (JOBS=$JOBS), files in page cache."
  echo "Pair: \`modelcat-audit-pair $shape\` — a Llama-3-style checkpoint, two BF16 shards"
  echo "($(du -cb "$DIR"/checkpoint/*.safetensors | tail -1 | cut -f1) bytes of real pseudo-random values), and its conversions."
  echo
  echo "| GGUF (flags) | verdict | GGUF GB | seconds | GB/s of GGUF data (sample mode: GGUF size / time) | CPU s (user+sys) | GB of GGUF data per CPU s | peak RSS MiB | MB read (both sides) | requests |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  row BF16 ""
  row Q8_0 ""
  row Q4_K ""
  row BF16 "--sample-rows 16"
  row Q4_K "--sample-rows 16"
  echo
  echo "Sample mode on the 8B-class layout (\`modelcat-samples --checkpoint\`: Llama 3.1 8B BF16, 16.06 GB of"
  echo "tensor data on each side, sparse; verdict fail only because zero rope_freqs do not match config.json):"
  echo
  echo "| GGUF (flags) | verdict | GGUF GB | seconds | GGUF size / time | CPU s (user+sys) | GB per CPU s | peak RSS MiB | MB read (both sides) | requests |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  row 8b/Meta-Llama-3.1-8B-Instruct-BF16 "--sample-rows 16" "$DIR/8b/Meta-Llama-3.1-8B-Instruct"
} > bench/RESULTS-audit.md
cat bench/RESULTS-audit.md
