#!/usr/bin/env bash
# Conversion audit benchmark: a generated Llama-3-style checkpoint of real
# pseudo-random BF16 values (>= 2 GB) and its BF16, Q8_0 and Q4_K conversions,
# audited from page cache; then every other quantized type as a GGUF of valid
# pseudo-random blocks (kit::random_blocks: their audits fail, the time is the
# decoders' and the comparison's all the same). Throughput is GGUF tensor data
# per second, wall and per CPU second; peak RSS from /usr/bin/time; sample mode's
# bytes and requests from the audit itself. Each row is the best of RUNS runs
# (default 3), the load average noted: the machine may be shared. Writes
# bench/RESULTS-audit.md. DIR keeps the generated files between runs (~15 GB).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-/tmp/modelcat-audit-bench}
JOBS=${JOBS:-2}
RUNS=${RUNS:-3}
RANDOM_TYPES=Q6_K,Q5_K,Q3_K,Q2_K,Q4_0,Q4_1,Q5_0,Q5_1,IQ4_XS,IQ4_NL,IQ3_S,IQ3_XXS,IQ2_S,IQ2_XS,IQ2_XXS,IQ1_M,IQ1_S,MXFP4,NVFP4,TQ1_0,TQ2_0,Q1_0,Q2_0
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DMODELCAT_TESTS=OFF >/dev/null
cmake --build build-bench -j2 --target modelcat modelcat-audit-pair modelcat-samples >/dev/null
shape="--layers 5 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 32000"
build-bench/modelcat-audit-pair "$DIR" $shape --quants --random-blocks "$RANDOM_TYPES"  # writes the files missing
# The 8B-class layout for sample mode's cost: Llama 3.1 8B's BF16 checkpoint and its BF16 GGUF as
# sparse replicas (every size, shape and offset real, the values zero, so rope_freqs fails).
[ -f "$DIR/8b/Meta-Llama-3.1-8B-Instruct-BF16.gguf" ] || build-bench/modelcat-samples "$DIR/8b" --checkpoint >/dev/null
db=$(mktemp -u /tmp/audit-bench-XXXX.db); trap 'rm -f "$db"*' EXIT
row() {  # GGUF name (under DIR), extra flags, checkpoint folder: the best of RUNS runs
  cat "${3:-$DIR/checkpoint}"/*.safetensors "$DIR/$1.gguf" >/dev/null  # page cache
  local out best="" load
  load=$(cut -d' ' -f1 /proc/loadavg)
  for _ in $(seq "$RUNS"); do
    out=$( { /usr/bin/time -f "rss_kb %M cpu %U %S" build-bench/modelcat audit --db "$db" --jobs "$JOBS" $2 \
          "$DIR/$1.gguf" "${3:-$DIR/checkpoint}"; } 2>&1 ) || true  # exit 1 (a failed audit) still has figures
    local verdict rss cpu bytes secs
    verdict=$(echo "$out" | awk '/^Verdict/{print $2}')
    rss=$(echo "$out" | awk '/^rss_kb/{printf "%.0f", $2/1024}')
    cpu=$(echo "$out" | awk '/^rss_kb/{printf "%.2f", $4 + $5}')
    bytes=$(echo "$out" | sed -n 's/.*read \([0-9]*\) bytes in \([0-9]*\) requests, \([0-9.e+-]*\) s/\1 \2 \3/p')
    secs=$(echo "$bytes" | cut -d' ' -f3)
    if [ -z "$best" ] || awk -v a="$secs" -v b="${best%% *}" 'BEGIN{exit !(a < b)}'; then best="$secs $verdict $rss $cpu $bytes"; fi
  done
  local gguf; gguf=$(stat -c %s "$DIR/$1.gguf")
  awk -v n="$1${2:+ $2}" -v g="$gguf" -v b="$best" -v l="$load" 'BEGIN{
    split(b, f, " "); printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %.0f | %s | %s |\n",
      n, f[2], g/1e9, f[1], g/1e9/f[1], f[4], g/1e9/f[4], f[3], f[5]/1e6, f[6], l}'
}
header() {
  echo "| GGUF (flags) | verdict | GGUF GB | seconds | GB/s of GGUF data | CPU s (user+sys) | GB of GGUF data per CPU s | peak RSS MiB | MB read (both sides) | requests | load before |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
}
{
  echo "# Conversion audit benchmark"
  echo
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores ($(lscpu | sed -nE 's/^Model name: +//p'); shared with other jobs: load average $(cut -d' ' -f1 /proc/loadavg)),"
  echo "Release build of $(git log -1 --format=%h), by \`bench/audit.sh\` (JOBS=$JOBS), files in page cache."
  echo "Earlier runs are in git history: \`git log -p -- bench/RESULTS-audit.md\`."
  echo "Pair: \`modelcat-audit-pair $shape\` — a Llama-3-style checkpoint, two BF16 shards"
  echo "($(du -cb "$DIR"/checkpoint/*.safetensors | tail -1 | cut -f1) bytes of real pseudo-random values), and its conversions."
  echo
  echo "Best of $RUNS runs a row; \"load before\" is the 1-minute load average as the row began. Sample mode's"
  echo "GB/s is the GGUF's size over the time. When other jobs hold the cores (load above 2) the two workers"
  echo "get less than two cores and the wall figures understate; GB of GGUF data per CPU second holds, and"
  echo "twice it is about what two idle cores give (at load 1.06 the previous build's BF16 audit took 0.98 s"
  echo "on 1.88 CPU s)."
  echo
  header
  row BF16 ""
  row Q8_0 ""
  row Q4_K ""
  row BF16 "--sample-rows 16"
  row Q4_K "--sample-rows 16"
  echo
  echo "Every other quantized type, as valid pseudo-random blocks of the same shapes (\`modelcat-audit-pair"
  echo "--random-blocks\`; verdict fail, as the values are not the source's):"
  echo
  header
  for t in ${RANDOM_TYPES//,/ }; do row "$t" ""; done
  echo
  echo "Sample mode on the 8B-class layout (\`modelcat-samples --checkpoint\`: Llama 3.1 8B BF16, 16.06 GB of"
  echo "tensor data on each side, sparse; verdict fail only because zero rope_freqs do not match config.json):"
  echo
  header
  row 8b/Meta-Llama-3.1-8B-Instruct-BF16 "--sample-rows 16" "$DIR/8b/Meta-Llama-3.1-8B-Instruct"
} > bench/RESULTS-audit.md
cat bench/RESULTS-audit.md
