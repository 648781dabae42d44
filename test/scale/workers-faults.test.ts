// `serve --workers N` on a bad day (real processes): a taken port stops the instance within seconds with one
// line instead of starting workers forever; a database or Redis that cannot be reached at start is named in one
// line, without a stack; one banner per instance; /metrics answers for the whole instance (every worker's counts
// summed), with prom-client's names under one `petstore_` prefix; a crashed worker is started again after a
// back-off.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { test } from 'node:test'
import { oneLineFailure, runCli, tempDir } from '../helpers/cli.js'
import { freePort, redisServer } from '../helpers/redis-server.js'
import { pollUntil } from '../helpers/within.js'
import { accountKey, freePorts, ROOMY, startInstance } from './support.js'

const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)

test('serve --workers 2 on a taken port: exits ≠ 0 within seconds, one line naming the port', async (t) => {
  const redis = await redisServer(t)
  await redis.start()
  const { file } = tempDir(t, 'petstore-workers-')
  const taken = createServer().listen(0, '127.0.0.1')
  await once(taken, 'listening')
  t.after(() => void taken.close())
  const port = (taken.address() as { port: number }).port
  const [messagesPort] = await freePorts(1)
  const started = Date.now()
  const r = await runCli(['serve', '--workers', '2'], {
    DATABASE_URL: file,
    REDIS_URL: redis.url,
    PORT: String(port),
    MESSAGES_PORT: String(messagesPort!),
  })
  const seconds = (Date.now() - started) / 1000
  const line = oneLineFailure(r, { logOnStdout: true })
  // Found before any worker starts (and before the database is touched): the line names the setting.
  assert.equal(
    line,
    `petstore: PORT=${port}: the port is in use on 127.0.0.1 (another process listens there) (EADDRINUSE)`,
  )
  // What this catches is a hang (a primary waiting forever for a worker that will never listen). Three processes
  // starting on a 2-CPU machine that runs four test files at once took up to 19 s in CI.
  assert.ok(seconds < 40, `took ${seconds} s`)
})

for (const args of [[], ['--workers', '2']]) {
  test(
    `serve ${args.join(' ')} with the database unreachable at start: ` + `one line naming it, no stack, exit ≠ 0`,
    async () => {
      const [dbPort, port, messagesPort] = await freePorts(3)
      const r = await runCli(['serve', ...args], {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${dbPort}/petstore`,
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        PORT: String(port),
        MESSAGES_PORT: String(messagesPort),
      })
      const line = oneLineFailure(r)
      assert.match(
        line,
        new RegExp(
          `^petstore: cannot use the database at postgres://127\\.0\\.0\\.1:${dbPort}/petstore: .*ECONNREFUSED`,
        ),
      )
    },
  )
}

test(
  'serve --workers 2 without Redis at start, then: one banner, one line naming Redis; ' +
    '/metrics sums both workers; a crashed worker comes back',
  async (t) => {
    const { file } = tempDir(t, 'petstore-workers-')
    const { key } = await accountKey(file, ROOMY)
    const redisPort = await freePort()
    const { origin, process: primary } = await startInstance(
      t,
      { DATABASE_URL: file, REDIS_URL: `redis://127.0.0.1:${redisPort}`, LOG_LEVEL: 'info' },
      ['--workers', '2'],
    )
    const workers = childrenOf(primary.pid)
    assert.equal(workers.length, 2)
    // The banner is on stderr, the log (JSON lines) on stdout.
    const banner = primary.stderr()
    assert.equal(banner.match(/Pet store API/g)?.length, 1, `one banner per instance: ${banner}`)
    assert.match(banner, /^Pet store API \(development\) at \S+\/v1 .*· {2}2 workers\n/)
    const redisLines = primary
      .stdout()
      .split('\n')
      .filter((l) => /Redis/.test(l))
    assert.equal(redisLines.length, 1, `one line naming Redis: ${redisLines.join('\n')}`)
    const redisLine = JSON.parse(redisLines[0]!) as { msg: string; err?: unknown; stack?: unknown }
    assert.match(
      redisLine.msg,
      new RegExp(
        `^Redis is not reachable at start \\(redis://127\\.0\\.0\\.1:${redisPort}: .+\\): ` +
          'limiting per process at 1/6 of each quota',
      ),
    )
    assert.equal(redisLine.err, undefined, 'no error object (and its stack) in the line')
    for (const line of primary.stdout().split('\n').filter(Boolean)) JSON.parse(line)
    assert.doesNotMatch(banner, /Redis/)

    // 20 requests, each on a connection of its own: the kernel spreads them over both workers.
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${origin}/v1/pets`, {
        headers: { authorization: `Bearer ${key}`, connection: 'close' },
      })
      assert.equal(response.status, 200)
      await response.text()
    }
    for (let scrape = 0; scrape < 4; scrape++) {
      const response = await fetch(`${origin}/metrics`, { headers: { connection: 'close' } })
      assert.equal(response.status, 200)
      const text = await response.text()
      const count =
        /^petstore_http_request_duration_seconds_count\{[^}]*route="\/v1\/pets",status="200"[^}]*\} (\d+)$/m.exec(text)
      assert.equal(
        count?.[1],
        '20',
        `scrape ${scrape + 1}: every worker's requests, whichever worker answered the scrape`,
      )
      assert.doesNotMatch(text, /process_process_/)
      assert.match(text, /^process_cpu_seconds_total /m)
      assert.match(text, /^nodejs_heap_size_used_bytes /m)
    }

    process.kill(workers[0]!, 'SIGKILL')
    await pollUntil('a new worker', async () => {
      const now = childrenOf(primary.pid)
      return now.length === 2 && !now.includes(workers[0]!) ? true : undefined
    })
    assert.match(
      primary.stderr().slice(banner.length),
      new RegExp(`^petstore: worker ${workers[0]} exited \\(SIGKILL\\); starting another in 250 ms\\n$`),
    )
    assert.equal((await fetch(`${origin}/healthz`, { headers: { connection: 'close' } })).status, 200)
    assert.equal(primary.stderr().match(/Pet store API/g)?.length, 1, 'the replacement prints no banner of its own')
    assert.deepEqual(await primary.stop(), { code: 0, signal: null }, primary.stderr())
  },
)
