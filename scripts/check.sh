#!/bin/sh
# npm test's first step: the build, then the checkers (`npm run lint`) and the type-check side by side. Each is mostly
# one CPU's work (tsc, depcruise, knip): one after another they took ~66 s of a 2-CPU machine with the other CPU
# idle, ~46 s so. The type-check reads the SDK's built types, so it waits for the build. Each one's output is
# printed when it ends; the step fails if any of them did.
set -u
# The build, unless its last output (the SDK's CommonJS marker, written last) is newer than everything it is built
# from: on a fresh clone `npm ci` has just built it (the `prepare` script), and building again cost ~35 s of one CPU
# while the other idled. A deleted source file changes its folder's time, so it counts as newer too.
stamp=sdk/dist/cjs/package.json
sources="src sdk/src sdk/scripts sdk/package.json sdk/tsconfig.json sdk/tsconfig.cjs.json scripts/bundle.mjs \
  tsconfig.json tsconfig.build.json package.json package-lock.json"
# shellcheck disable=SC2086
if [ -f "$stamp" ] && [ -f dist/petstore.mjs ] && [ -z "$(find $sources -newer "$stamp" -print -quit)" ]; then
  echo "# build: up to date (nothing changed since $stamp was written)"
else
  npm run --silent build || exit 1
fi
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
