#!/usr/bin/env bash
# Remote header reads per vocabulary size (issue 25, item 4): each file crawled alone over HTTP
# range requests from nginx on 127.0.0.1; requests and bytes per file from nginx's access log,
# the header's bytes from a local crawl, local reads and bytes from modelcat's own record.
# Files: the 8-quant Llama 3.1 lineup (`modelcat-samples DIR`), models with vocabularies of
# 32K to 512K tokens (`modelcat-samples DIR --vocab`, tests/kit/ranked_vocab.hpp), and three real
# vocabularies from ../shared/fixtures/real followed by 1 GiB of (sparse) zeros.
#
#   bench/remote-vocab.sh [--modelcat BIN] [--samples BIN]                  # one binary: a table
#   bench/remote-vocab.sh --before OLD_BIN --modelcat NEW_BIN               # both, side by side
#
# Writes the table to stdout; OUT=FILE also to FILE. Needs nginx (nginx-light) and sqlite3.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
MODELCAT=$repo/build/modelcat
SAMPLES=$repo/build/modelcat-samples
BEFORE=
while [ $# -gt 0 ]; do
  case $1 in
    --modelcat) MODELCAT=$2; shift 2 ;;
    --samples) SAMPLES=$2; shift 2 ;;
    --before) BEFORE=$2; shift 2 ;;
    *) echo "usage: $0 [--modelcat BIN] [--samples BIN] [--before OLD_BIN]" >&2; exit 2 ;;
  esac
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
work=$(mktemp -d /tmp/modelcat-remote-vocab-XXXXXX)
nginx_pid=
cleanup() {
  if [ -n "$nginx_pid" ]; then kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$SAMPLES" "$work/files" >/dev/null
"$SAMPLES" "$work/files" --vocab >/dev/null
# Real vocabularies (../shared/fixtures/real) at the head of a model file: 1 GiB of zeros after them (sparse),
# so that their reads are sized by the estimate, not cut at the file's end.
for v in gpt-2 starcoder baichuan; do
  cp "$repo/../shared/fixtures/real/ggml-vocab-$v.gguf" "$work/files/real-vocab-$v.gguf"
  truncate -s +1G "$work/files/real-vocab-$v.gguf"
done

# nginx as in tests/http/nginx.cpp: sndbuf=32k, so that $body_bytes_sent is what the client received
n=$work/nginx
mkdir -p "$n/tmp"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$n/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $n/nginx.pid;
error_log $n/error.log notice;
events { worker_connections 64; }
http {
  log_format bench '\$status\t\$body_bytes_sent\t\$request_uri';
  access_log $n/access.log bench;
  client_body_temp_path $n/tmp/body; proxy_temp_path $n/tmp/proxy; fastcgi_temp_path $n/tmp/fastcgi;
  uwsgi_temp_path $n/tmp/uwsgi; scgi_temp_path $n/tmp/scgi;
  default_type application/octet-stream;
  sendfile on;
  server { listen 127.0.0.1:$port sndbuf=32k; location /files/ { alias $work/files/; } }
}
EOF
"$NGINX" -p "$n" -c "$n/nginx.conf" -e "$n/error.log" &
nginx_pid=$!
for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.025; done

lines() { wc -l < "$n/access.log" 2>/dev/null || echo 0; }
settle() { local a b; a=$(lines); while sleep 0.2; b=$(lines); [ "$a" != "$b" ]; do a=$b; done; }

# measure BIN FILE: "requests bytes local_reads local_bytes" for FILE
measure() {
  local bin=$1 f=$2 from to
  settle; from=$(lines)
  rm -f "$work/r.db"*
  "$bin" crawl --quiet --db "$work/r.db" "http://127.0.0.1:$port/files/$f" >/dev/null
  settle; to=$(lines)
  sed -n "$((from + 1)),${to}p" "$n/access.log" | awk -F'\t' '{r++; b+=$2} END {printf "%d %d", r, b}'
  rm -f "$work/l.db"*
  "$bin" crawl --quiet --db "$work/l.db" "$work/files/$f" >/dev/null
  sqlite3 "$work/l.db" "select ' ' || requests || ' ' || bytes_read from files"
}

header() { sqlite3 "$work/ref.db" "select header_bytes from files where location like '%/$1'"; }
"$MODELCAT" crawl --quiet --db "$work/ref.db" "$work/files" >/dev/null

cols="| file | header bytes |"
sep="|---|---:|"
bins=("$MODELCAT"); labels=(after)
if [ -n "$BEFORE" ]; then bins=("$BEFORE" "$MODELCAT"); labels=(before after); fi
for l in "${labels[@]}"; do
  cols+=" $l requests | $l bytes | $l ÷ header | $l local reads | $l local bytes |"
  sep+="---:|---:|---:|---:|---:|"
done
{
  echo "# Remote header reads per vocabulary size (issue 25, item 4)"
  echo
  echo "Measured $(date -u +%Y-%m-%dT%H:%M:%SZ) by \`bench/remote-vocab.sh\` on $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)), nginx $("$NGINX" -v 2>&1 | sed 's/.*\///'), modelcat $(git -C "$repo" rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg) (the figures are requests and bytes, which the load does not change)."
  echo "Earlier runs are in git history: \`git log -p -- bench/RESULTS-remote-vocab.md\`."
  echo
  echo "Each file crawled alone (\`modelcat crawl URL\` into a fresh catalogue) from nginx on 127.0.0.1 (\`sndbuf=32k\`, as the tests'"
  echo "nginx); requests and bytes from nginx's access log. Header bytes from a local crawl; local reads and bytes"
  echo "from a local crawl's \`files\` row. The lineup: \`modelcat-samples DIR\`; the vocabularies: \`modelcat-samples DIR --vocab\`"
  echo "(tests/kit/ranked_vocab.hpp: token lengths growing with rank and levelling off, merges spelling tokens;"
  echo "\`bpe-128k-llama3\`: 2.18 merges per token as Llama 3's; \`spm-256k\`: SentencePiece, scores and no merges; \`bpe-512k\`: a 28 MB header);"
  echo "\`real-vocab-*\`: llama.cpp's vocabulary files (../shared/fixtures/real) followed by 1 GiB of zeros, as at the head of a model file."
  [ -n "$BEFORE" ] && echo "before: \`$("$BEFORE" --version | head -n1)\`; after: \`$("$MODELCAT" --version | head -n1)\`."
  echo
  echo "$cols"
  echo "$sep"
  for path in $(ls "$work/files"/*.gguf | sort); do
    f=$(basename "$path")
    case $f in *-BF16.gguf) continue ;; esac
    h=$(header "$f")
    row="| $f | $(printf "%'d" "$h") |"
    for b in "${bins[@]}"; do
      read -r req bytes lreq lbytes < <(measure "$b" "$f")
      row+=" $req | $(printf "%'d" "$bytes") | $(awk -v b="$bytes" -v h="$h" 'BEGIN { printf "%.3f", b / h }') | $lreq | $(printf "%'d" "$lbytes") |"
    done
    echo "$row"
  done
} | tee "${OUT:-/dev/null}"
