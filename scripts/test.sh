#!/bin/sh
# The test command (`npm test`, after build and typecheck): the whole suite on SQLite with the in-memory
# limiter, then the whole suite again on PostgreSQL + Redis when TEST_DATABASE_URL and TEST_REDIS_URL are set.
# The first pass records every injected response (RECORD_RESPONSES); the contract test, run last, holds each
# of them to the OpenAPI documents.
set -e
contract=test/http/contract.test.ts
files=$(find test -name '*.test.ts' ! -path "$contract" | sort)
records=$(mktemp -d)
trap 'rm -rf "$records"' EXIT
echo "# pass 1 of 2: SQLite + in-memory rate limits"
RECORD_RESPONSES="$records" node --import tsx --test --test-concurrency=1 $files
RECORD_RESPONSES="$records" node --import tsx --test $contract
files="$files $contract"
if [ -n "$TEST_DATABASE_URL" ] && [ -n "$TEST_REDIS_URL" ]; then
  echo "# pass 2 of 2: PostgreSQL ($TEST_DATABASE_URL) + Redis ($TEST_REDIS_URL)"
  TEST_BACKEND=postgres node --import tsx --test --test-concurrency=1 $files
else
  echo "# pass 2 of 2 skipped: set TEST_DATABASE_URL and TEST_REDIS_URL to run the suite on PostgreSQL + Redis"
fi
