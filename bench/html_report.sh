#!/usr/bin/env bash
# HTML report benchmark: the 8-quant lineup crawled, then copied (bench/copy_models.py)
# into COPIES x 8 more models of one architecture; `modelcat report --html` on the
# lineup-named models (1,000 by default), loaded in headless Chromium RUNS times.
# Render time is the page's own clock: navigation start to the first frame after
# its script drew every map (<body data-render-ms>). Writes bench/RESULTS-html.md.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}; COPIES=${COPIES:-124}; BUILD=${BUILD:-build}
cmake --build "$BUILD" -j"$(nproc)" --target modelcat modelcat-samples >/dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$BUILD"/modelcat-samples "$work/lineup" >/dev/null
"$BUILD"/modelcat crawl --quiet --db "$work/zoo.db" "$work/lineup" 2>/dev/null
python3 bench/copy_models.py "$work/zoo.db" 'Meta-Llama%' "$COPIES" >/dev/null
t0=$(date +%s.%N)
"$BUILD"/modelcat report --html "$work/zoo.html" --db "$work/zoo.db" --pattern '%Meta-Llama%' 2>"$work/report.log"
t1=$(date +%s.%N)
models=$(sqlite3 "$work/zoo.db" "select count(*) from models where name like '%Meta-Llama%'")
bytes=$(stat -c %s "$work/zoo.html")
renders=(); scripts=()
for i in $(seq "$RUNS"); do
  chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" --dump-dom "file://$work/zoo.html" \
    2>/dev/null > "$work/dom.html"
  renders+=("$(grep -o 'data-render-ms="[0-9]*"' "$work/dom.html" | grep -o '[0-9]*' || echo '?')")
  scripts+=("$(grep -o 'data-script-ms="[0-9]*"' "$work/dom.html" | grep -o '[0-9]*' || echo '?')")
done
cells=$(grep -o 'data-tensor=' "$work/dom.html" | wc -l)
{
  echo "# HTML report benchmark"
  echo
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) shared cores ($(lscpu | sed -nE 's/^Model name: +//p'); load average $(cut -d' ' -f1-3 /proc/loadavg) at the end) by \`bench/html_report.sh\` (RUNS=$RUNS) at $(git log -1 --format=%h), $(chromium --version 2>/dev/null | head -1)."
  echo "Earlier runs are in git history: \`git log -p -- bench/RESULTS-html.md\`."
  echo "Input: the 8-quant Llama 3.1 8B lineup plus $COPIES copies of it under other names (bench/copy_models.py): $models models of one architecture, 292 tensors each."
  echo
  echo "| what | value |"
  echo "|---|---|"
  echo "| page size | $bytes bytes ($(awk "BEGIN{printf \"%.2f\", $bytes / 1048576}") MiB) |"
  echo "| \`modelcat report --html\` wall time | $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s |"
  echo "| render: navigation start to the first frame after every map is drawn (ms, per run) | ${renders[*]} |"
  echo "| of which the page's script (ms, per run) | ${scripts[*]} |"
  echo "| cells with data-tensor in the drawn DOM (maps and group maps) | $cells |"
} > bench/RESULTS-html.md
cat bench/RESULTS-html.md
