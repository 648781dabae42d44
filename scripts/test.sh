#!/bin/sh
# The test command (`npm test`, after build and typecheck): the whole suite on SQLite with the in-memory
# limiter, and the whole suite again on PostgreSQL + Redis when TEST_DATABASE_URL and TEST_REDIS_URL are set.
# The two passes run at the same time, each TEST_CONCURRENCY files at once (default 2): they share nothing (every
# test has its own in-memory SQLite, PostgreSQL schema and Redis key prefix, and its own ports), and most files
# spend their time waiting (a file uses about 40% of a CPU): on a 2-CPU machine the whole run took 28 minutes
# instead of about 50 one file at a time. The second pass's output is printed when it ends.
# The first pass records every injected response (RECORD_RESPONSES); the contract test, run after it, holds each
# of them to the OpenAPI documents.
# The files run bundled to plain JavaScript (.test-build/, by scripts/build-tests.mjs, which says why: it halves the
# suite's CPU time), so the output names .test-build/NNN/test/….test.js for test/….test.ts. One file by hand, without
# the build: `node --import tsx --test FILE.ts`.
# What a file costs in CPU seconds: scripts/test-cpu.sh.
set -e
jobs="${TEST_CONCURRENCY:-2}"
contract=test/api/contract.test.ts
node scripts/build-tests.mjs
# .ci/run compiles better-sqlite3 while the checks run: the tests need it, so they wait for it to end.
if [ -n "${NATIVE_BUILD_DONE:-}" ]; then
  while [ ! -s "$NATIVE_BUILD_DONE" ]; do sleep 1; done
  if [ "$(cat "$NATIVE_BUILD_DONE")" -ne 0 ]; then
    echo "# better-sqlite3 did not build:"
    cat "${NATIVE_BUILD_LOG:-/dev/null}"
    exit 1
  fi
fi
# Slowest files first (scripts/slow-tests.txt, CPU seconds from scripts/test-cpu.sh; one path a line), so a long
# file (the benchmark, the browser tests, the multi-process ones) does not start near the end and run alone while
# the other CPU idles; every other file follows in name order. node --test sorts the paths it is given, so the order
# is in the built paths themselves (.test-build/NNN/test/…, written by build-tests.mjs with .test-build/files.txt:
# one `source built` pair a line, in that order).
# Pass 2 leaves out files that would check nothing more there: those that touch no database or Redis, and the
# browser tests (their routes are tested over HTTP on both backends). Listed, each with its reason, in
# scripts/pass1-only-tests.txt.
pass1_only=$(grep -v '^#' scripts/pass1-only-tests.txt | awk 'NF { print $1 }')
# Small files share a process, several to a built file (build-tests.mjs says which): each built file once.
files=$(awk -v c="$contract" '$1 != c && !seen[$2]++ { print $2 }' .test-build/files.txt)
files_pass2=$(echo "$pass1_only" | awk -v c="$contract" 'NR == FNR { if (NF) skip[$1] = 1; next } $1 != c && !($1 in skip) && !seen[$2]++ { print $2 }' - .test-build/files.txt)
contract=$(awk -v c="$contract" '$1 == c { print $2 }' .test-build/files.txt)
records=$(mktemp -d)
pass2_log="$records/pass2.log"
trap 'rm -rf "$records"' EXIT

pass2_pid=''
if [ -n "$TEST_DATABASE_URL" ] && [ -n "$TEST_REDIS_URL" ]; then
  node scripts/pg-catalogs.mjs
  echo "# pass 2 of 2 started: PostgreSQL ($TEST_DATABASE_URL) + Redis ($TEST_REDIS_URL); its output follows pass 1's"
  TEST_BACKEND=postgres node --test --test-concurrency="$jobs" $files_pass2 $contract >"$pass2_log" 2>&1 &
  pass2_pid=$!
  # Stopped with the script (Ctrl-C, a CI timeout): no pass left running behind it.
  trap 'kill "$pass2_pid" 2>/dev/null || true; rm -rf "$records"' EXIT
else
  echo "# pass 2 of 2 skipped: set TEST_DATABASE_URL and TEST_REDIS_URL to run the suite on PostgreSQL + Redis"
fi

echo "# pass 1 of 2: SQLite + in-memory rate limits"
pass1=0
RECORD_RESPONSES="$records" node --test --test-concurrency="$jobs" $files || pass1=$?
RECORD_RESPONSES="$records" node --test $contract || pass1=$?

pass2=0
if [ -n "$pass2_pid" ]; then
  wait "$pass2_pid" || pass2=$?
  echo "# pass 2 of 2: PostgreSQL + Redis"
  cat "$pass2_log"
fi
echo "# pass 1 exit $pass1, pass 2 exit $pass2"
[ "$pass1" -eq 0 ] && [ "$pass2" -eq 0 ]
