#!/bin/sh
# npm test's first step: the build, then the checkers (`npm run lint`) and the type-check side by side. Each is mostly
# one CPU's work (tsc, depcruise, knip): one after another they took ~66 s of a 2-CPU machine with the other CPU
# idle, ~46 s so. The type-check reads the SDK's built types, so it waits for the build. Each one's output is
# printed when it ends; the step fails if any of them did.
set -u
npm run --silent build || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for step in lint typecheck; do
  (npm run --silent "$step" >"$dir/$step.log" 2>&1; echo $? >"$dir/$step.rc") &
done
wait
failed=0
for step in lint typecheck; do
  echo "# npm run $step: exit $(cat "$dir/$step.rc")"
  cat "$dir/$step.log"
  [ "$(cat "$dir/$step.rc")" -eq 0 ] || failed=1
done
exit "$failed"
