// The log as an operator's collector reads it: `petstore serve` as a real process (the built CLI, a temporary
// SQLite file, free ports). stdout carries JSON lines only, the request lines among them; the human start-up
// banner (URLs, the local key shown once, the curl line) is on stderr (stdout only on a terminal). LOG_FORMAT=pretty
// gives readable lines outside production and is refused in production; with --workers 2 it is the same.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { oneLineFailure, runCli, tempDir } from '../helpers/cli.js'
import { redisServer } from '../helpers/redis-server.js'
import { freePort, spawnServe, type ServeProcess } from '../helpers/serve.js'

const START_LINE = /Pet store API \(development\) at (http:\/\/\S+\/v1)\s/
const KEY = /ps_test_[A-Za-z0-9_-]+/

async function env(t: Parameters<typeof tempDir>[0], extra: Record<string, string> = {}) {
  const { file } = tempDir(t, 'petstore-logs-')
  const port = await freePort()
  let messagesPort = await freePort()
  while (messagesPort === port) messagesPort = await freePort()
  return { HOST: '127.0.0.1', PORT: String(port), MESSAGES_PORT: String(messagesPort), DATABASE_URL: file, ...extra }
}

/** Starts the server, reads its banner, sends a request with the printed key and one without, and stops it. */
async function run(server: ServeProcess, timeoutMs = 20_000) {
  const [, base] = await server.waitFor(START_LINE, timeoutMs)
  await server.waitFor(/^\s*curl .*$/m, timeoutMs)
  const [key] = server.stderr().match(KEY)!
  assert.equal(
    (await fetch(`${base}/pets`, { headers: { authorization: `Bearer ${key}`, 'user-agent': 'log-test/1' } })).status,
    200,
  )
  assert.equal((await fetch(`${base}/pets`)).status, 401)
  assert.deepEqual(await server.stop(), { code: 0, signal: null }, server.stderr())
  return { key: key!, base: base! }
}

const jsonLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown> & { msg: string }
      } catch {
        assert.fail(`a line on stdout is not JSON: ${l}`)
      }
    })

test('serve: every line on stdout is JSON, the banner and the key are on stderr only', async (t) => {
  const server = spawnServe(t, await env(t))
  const { key } = await run(server)
  const lines = jsonLines(server.stdout())
  const requests = lines.filter((l) => l.msg === 'request')
  assert.deepEqual(
    requests.map((l) => [l.status, l.errorCode, l.userAgent, typeof l.accountId, typeof l.keyId]),
    [
      [200, undefined, 'log-test/1', 'string', 'string'],
      [401, 'missing_api_key', 'node', 'undefined', 'undefined'],
    ],
  )
  assert.ok(lines.some((l) => l.msg === 'shutting down'))
  assert.ok(!server.stdout().includes(key), 'the key is in the log')
  assert.match(server.stderr(), /Pet store API \(development\) at http:\/\/127\.0\.0\.1:\d+\/v1/)
  assert.match(server.stderr(), /Messages interface at /)
  assert.ok(server.stderr().includes(key), 'the key is shown once, on stderr')
  assert.doesNotMatch(server.stdout(), /Pet store API|Messages interface|curl /)
})

test('LOG_FORMAT=pretty (development): readable lines on stdout, not JSON; the banner still on stderr', async (t) => {
  const server = spawnServe(t, await env(t, { LOG_FORMAT: 'pretty' }))
  await run(server)
  const out = server.stdout()
  assert.match(out, /INFO.*: request/)
  assert.match(out, /status: 200/)
  assert.ok(!out.split('\n').some((l) => l.startsWith('{')), out)
  assert.match(server.stderr(), /Pet store API/)
})

test('LOG_FORMAT=pretty in production: refused with one line naming it', async (t) => {
  const r = await runCli(['serve'], await env(t, { LOG_FORMAT: 'pretty', PETSTORE_ENV: 'production' }))
  const line = oneLineFailure(r)
  assert.match(line, /LOG_FORMAT=pretty/)
  assert.match(line, /production/)
  const bad = oneLineFailure(await runCli(['serve'], await env(t, { LOG_FORMAT: 'text' })))
  assert.match(bad, /LOG_FORMAT="text": must be one of json, pretty/)
})

test('serve --workers 2: stdout of the whole instance is JSON lines, the banner on stderr', async (t) => {
  const redis = await redisServer(t)
  await redis.start()
  const server = spawnServe(t, await env(t, { REDIS_URL: redis.url }), ['--workers', '2'])
  // Every worker listens (on a busy machine three processes take a while to start).
  await server.waitFor(/· {2}2 workers\n/, 90_000)
  await run(server)
  const requests = jsonLines(server.stdout()).filter((l) => l.msg === 'request')
  assert.equal(requests.length, 2)
  assert.match(server.stderr(), /Pet store API/)
  assert.doesNotMatch(server.stdout(), /Pet store API|curl /)
})
