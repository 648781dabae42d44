#!/usr/bin/env bash
# Proves the README's quick start on this checkout (run by .ci/run after `npm ci`): `npm start` serves,
# `GET /healthz` answers 200 and the API key printed at the first start is accepted by `GET /v1/pets`.
# The key is in the start-up banner, on stderr; stdout is the log, JSON lines only (checked too).
# It runs on free ports and stops the server whatever happens. As a newcomer's checkout: no DATABASE_URL, so the
# first start makes the default ./data/petstore.db; in a folder of its own (links to this checkout's bin/, dist/ and
# node_modules/, a copy of package.json), so that database is a fresh one and is not left in the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
server=
cleanup() {
  # npm start runs in its own process group (setsid): stop npm, its shell and node together.
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM -- "-$server" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
port=$(free_port)
messages_port=$(free_port)
while [ "$messages_port" = "$port" ]; do messages_port=$(free_port); done

mkdir "$work/checkout"
for linked in bin dist node_modules; do ln -s "$PWD/$linked" "$work/checkout/$linked"; done
cp package.json "$work/checkout/"
# Only what the quick start needs: our settings from the caller's environment would not be a fresh start (nor a
# .env of this checkout: the copy has none).
env -C "$work/checkout" -u REDIS_URL -u PETSTORE_ENV -u PETSTORE_WORKERS -u LOG_LEVEL -u DATABASE_URL \
  -u PETSTORE_ENV_FILE HOST=127.0.0.1 PORT="$port" MESSAGES_PORT="$messages_port" \
  setsid npm start >"$work/out.log" 2>"$work/err.log" </dev/null &
server=$!

key=
for _ in $(seq 1 300); do
  key=$(grep -oE 'ps_test_[A-Za-z0-9_-]+' "$work/err.log" | head -n 1 || true)
  [ -n "$key" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.2
done
if [ -z "$key" ]; then
  echo "quickstart-check: npm start printed no API key on stderr; its output:" >&2
  cat "$work/out.log" "$work/err.log" >&2
  exit 1
fi

base="http://127.0.0.1:$port"
status() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@"; }
health=$(status "$base/healthz")
pets=$(status -H "Authorization: Bearer $key" "$base/v1/pets")
if [ "$health" != 200 ] || [ "$pets" != 200 ]; then
  echo "quickstart-check: GET /healthz answered $health, GET /v1/pets with the printed key $pets (both must be 200); output:" >&2
  cat "$work/out.log" "$work/err.log" >&2
  exit 1
fi
# npm's own lines (`> petstore@… start`, and blank ones) come before node starts; from node on, every line is JSON.
if ! node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter((l) => l.trim() && !l.startsWith(">"))
  const bad = lines.filter((l) => { try { JSON.parse(l); return false } catch { return true } })
  if (lines.length === 0 || bad.length > 0) { console.error(bad.join("\n") || "no log line"); process.exit(1) }
' "$work/out.log"; then
  echo "quickstart-check: stdout of npm start has lines that are not JSON (above): the log must be JSON lines only" >&2
  exit 1
fi
echo "quickstart-check: npm start serves on $base; /healthz 200, /v1/pets with the printed key 200"
