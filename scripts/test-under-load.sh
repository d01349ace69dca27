#!/usr/bin/env bash
# scripts/test-under-load.sh [RUNS]: the suite on a busy machine. Starts one
# CPU hog per core (a shell loop at normal priority), then runs CI's command
# (.ci/run: make test in a fresh clone) RUNS times in a row (3 by default),
# stopping at the first failure. Each run's go test -json events are kept in
# out/load-N.json; the end prints each run's wall time and its totals, to
# compare with a quiet run's out/test.json (bin/testprogress < FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
cores="$(nproc)"
mkdir -p out

hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true; }
trap stop_hogs EXIT
for _ in $(seq "$cores"); do
  bash -c 'while :; do :; done' &
  hogs+=("$!")
done
echo "test-under-load: $cores CPU hogs running (pids ${hogs[*]}); $runs runs of .ci/run"

summary=()
for i in $(seq "$runs"); do
  events="$PWD/out/load-$i.json"
  start=$(date +%s)
  status=0
  CI=true CAPSULE_TEST_JSON="$events" .ci/run > "out/load-$i.log" 2>&1 || status=$?
  took=$(( $(date +%s) - start ))
  totals="$(grep -E '^[0-9]+ packages, ' "out/load-$i.log" | tail -1 || true)"
  line="run $i: exit $status in $((took / 60))m$((took % 60))s; ${totals:-no totals (see out/load-$i.log)}"
  echo "$line"
  summary+=("$line")
  if [ "$status" -ne 0 ]; then
    echo "test-under-load: run $i failed; its output is in out/load-$i.log" >&2
    exit 1
  fi
done
printf '%s\n' "${summary[@]}"
