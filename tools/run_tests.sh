#!/bin/sh
# run_tests.sh JOBS LOGDIR TEST... -- runs the test programs, JOBS at a
# time (each its own process; they share no files), each one's output into
# LOGDIR/NAME.log; then prints every log in the order given, under
# "== TEST", and exits 1 naming the programs that failed. The environment
# (LDLPGS_TEST_SHORT, ASAN_OPTIONS) passes through to every program;
# RUNNER, if set, is a command each program runs under (e.g. valgrind).
set -eu
jobs=$1
logs=$2
shift 2
mkdir -p "$logs"
rm -f "$logs"/*.log "$logs"/*.failed
for t in "$@"; do printf '%s\n' "$t"; done |
  xargs -P "$jobs" -I '{}' sh -c 'n=$(basename "$1"); ${RUNNER:-} "$1" > "$2/$n.log" 2>&1 || touch "$2/$n.failed"' sh '{}' "$logs"
failed=""
for t in "$@"; do
  n=$(basename "$t")
  echo "== $t"
  cat "$logs/$n.log"
  if [ -e "$logs/$n.failed" ]; then failed="$failed $t"; fi
done
if [ -n "$failed" ]; then
  echo "FAILED:$failed" >&2
  exit 1
fi
