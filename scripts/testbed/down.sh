#!/usr/bin/env bash
# Stops the test bed started by up.sh: SIGTERM to every recorded PID (reverse start order), SIGKILL after 10 s,
# then removes the etcd data. Certificates and kubeconfigs are kept for the next start.
set -uo pipefail
DIR="${CORRAL_TESTBED_DIR:-${TMPDIR:-/tmp}/corral-testbed}"
[ -f "$DIR/pids" ] || exit 0
mapfile -t lines < <(tac "$DIR/pids")
for l in "${lines[@]}"; do
  pid=${l##* }
  kill -TERM "$pid" 2>/dev/null || true
done
for l in "${lines[@]}"; do
  pid=${l##* }
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null || true
done
if [ -f "$DIR/etcd-data-path" ]; then rm -rf "$(cat "$DIR/etcd-data-path")"; fi
rm -f "$DIR/pids" "$DIR/env"
printf '[testbed] stopped\n' >&2
