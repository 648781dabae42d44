#!/bin/sh
# CPU seconds (user + system, the file's process and every child it waited for: the CLI, servers, pg_dump) of
# each test file, run one at a time the way `npm test` runs it (bundled, see scripts/build-tests.mjs), with the
# backend settings of the environment (set TEST_BACKEND=postgres and the TEST_* URLs for the PostgreSQL + Redis
# pass). PostgreSQL's and Redis's own CPU is not counted. On a shared machine wall time is noise; CPU time is what
# the 2-CPU CI machine has to spend, so this is what to rank files by (scripts/slow-tests.txt comes from it).
# Usage: sh scripts/test-cpu.sh [test/….test.ts ...]   (default: every test file). Prints
# "cpu_s wall_s exit file", most CPU first, when done; each line also to stderr as it comes. A file that runs in a
# group (scripts/build-tests.mjs) is measured with its group, once, named by the group's built file; one file alone:
# `node --import tsx --test FILE` under /usr/bin/time (tsx adds ~3 CPU-s of loading).
files="$*"
[ -n "$files" ] || files=$(find test -name '*.test.ts' | sort)
node scripts/build-tests.mjs
out=$(mktemp)
trap 'rm -f "$out" "$out.t"' EXIT
seen=''
for f in $files; do
  built=$(awk -v want="$f" '$1 == want { print $2 }' .test-build/files.txt)
  case " $seen " in *" $built "*) continue ;; esac
  seen="$seen $built"
  case "$built" in *group-*) f="$built" ;; esac
  /usr/bin/time -f "%U %S %e" -o "$out.t" node --test "$built" >/dev/null 2>&1; rc=$?
  line=$(tail -n 1 "$out.t" | awk -v rc="$rc" -v f="$f" '{ printf "%7.1f %7.1f %3d %s\n", $1 + $2, $3, rc, f }')
  echo "$line" >&2
  echo "$line" >>"$out"
done
sort -rn "$out"
