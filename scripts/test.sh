#!/bin/sh
# The test command (`npm test`, after build and typecheck): the whole suite on SQLite with the in-memory
# limiter, and the whole suite again on PostgreSQL + Redis when TEST_DATABASE_URL and TEST_REDIS_URL are set.
# The two passes run at the same time, each one file after another: they share nothing (every test has its own
# in-memory SQLite, PostgreSQL schema and Redis key prefix, and listens on ports the OS picks), and together they
# take about half the time of one after the other. The second pass's output is printed when it ends.
# The first pass records every injected response (RECORD_RESPONSES); the contract test, run after it, holds each
# of them to the OpenAPI documents.
set -e
contract=test/http/contract.test.ts
files=$(find test -name '*.test.ts' ! -path "$contract" | sort)
records=$(mktemp -d)
pass2_log="$records/pass2.log"
trap 'rm -rf "$records"' EXIT

pass2_pid=''
if [ -n "$TEST_DATABASE_URL" ] && [ -n "$TEST_REDIS_URL" ]; then
  echo "# pass 2 of 2 started: PostgreSQL ($TEST_DATABASE_URL) + Redis ($TEST_REDIS_URL); its output follows pass 1's"
  TEST_BACKEND=postgres node --import tsx --test --test-concurrency=1 $files $contract >"$pass2_log" 2>&1 &
  pass2_pid=$!
  # Stopped with the script (Ctrl-C, a CI timeout): no pass left running behind it.
  trap 'kill "$pass2_pid" 2>/dev/null || true; rm -rf "$records"' EXIT
else
  echo "# pass 2 of 2 skipped: set TEST_DATABASE_URL and TEST_REDIS_URL to run the suite on PostgreSQL + Redis"
fi

echo "# pass 1 of 2: SQLite + in-memory rate limits"
pass1=0
RECORD_RESPONSES="$records" node --import tsx --test --test-concurrency=1 $files || pass1=$?
RECORD_RESPONSES="$records" node --import tsx --test $contract || pass1=$?

pass2=0
if [ -n "$pass2_pid" ]; then
  wait "$pass2_pid" || pass2=$?
  echo "# pass 2 of 2: PostgreSQL + Redis"
  cat "$pass2_log"
fi
echo "# pass 1 exit $pass1, pass 2 exit $pass2"
[ "$pass1" -eq 0 ] && [ "$pass2" -eq 0 ]
