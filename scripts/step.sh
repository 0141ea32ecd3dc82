# Sourced by scripts/quickstart and scripts/install-deps: `step "what" command...` prints
# "what ... ok (12 s)" on stderr and sends the command's own output to $log; if it fails,
# the log's end and its path.
step() {
  local what="$1" t0=$SECONDS; shift
  printf '%s ... ' "$what" >&2
  if "$@" >>"$log" 2>&1; then
    printf 'ok (%d s)\n' $((SECONDS - t0)) >&2
  else
    step_failed "$what"
  fi
}

step_failed() {
  printf 'failed\n' >&2
  tail -n 20 "$log" >&2
  echo "'$1' failed; the whole log: $log" >&2
  exit 1
}
