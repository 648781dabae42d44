#!/bin/sh
# The test command (`npm test`, after build and typecheck): the whole suite on SQLite with the in-memory
# limiter, then the whole suite again on PostgreSQL + Redis when TEST_DATABASE_URL and TEST_REDIS_URL are set.
set -e
files=$(find test -name '*.test.ts' | sort)
echo "# pass 1 of 2: SQLite + in-memory rate limits"
node --import tsx --test --test-concurrency=1 $files
if [ -n "$TEST_DATABASE_URL" ] && [ -n "$TEST_REDIS_URL" ]; then
  echo "# pass 2 of 2: PostgreSQL ($TEST_DATABASE_URL) + Redis ($TEST_REDIS_URL)"
  TEST_BACKEND=postgres node --import tsx --test --test-concurrency=1 $files
else
  echo "# pass 2 of 2 skipped: set TEST_DATABASE_URL and TEST_REDIS_URL to run the suite on PostgreSQL + Redis"
fi
