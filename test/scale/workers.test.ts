// `serve --workers N` (node:cluster): refused without REDIS_URL; with it, two worker processes behind one port
// share one exact quota, both answer requests, and SIGTERM to the primary stops everything with exit 0.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { test } from 'node:test'
import { postgresOnly, postgresSchema } from '../helpers/backend.js'
import { oneLineFailure, runCli, tempDir } from '../helpers/cli.js'
import { accountKey, freePorts, redisPrefix, startInstance, statusCounts, withinOneMinute } from './support.js'

for (const [how, args, env] of [
  ['serve --workers 2', ['serve', '--workers', '2'], {}],
  ['PETSTORE_WORKERS=2 serve', ['serve'], { PETSTORE_WORKERS: '2' }],
] as const) {
  test(`${how} without REDIS_URL exits ≠ 0 with one line naming REDIS_URL, before touching the database`, async (t) => {
    const { file } = tempDir(t, 'petstore-workers-')
    const [port, messagesPort] = await freePorts(2)
    const r = await runCli([...args], {
      DATABASE_URL: file,
      PORT: String(port),
      MESSAGES_PORT: String(messagesPort),
      ...env,
    })
    const line = oneLineFailure(r)
    assert.match(line, /REDIS_URL/)
    assert.match(line, /PETSTORE_WORKERS|worker/i)
    assert.equal(existsSync(file), false, 'the database was created anyway')
  })
}

/** Child process ids of `pid` (Linux). */
const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)

/** A process's start time (field 22 of /proc/PID/stat), or undefined once it is gone: with the pid, its identity. */
function startTimeOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]
  } catch {
    return undefined
  }
}

/** Which process holds the server side of each connection to `port`: client port → pid, among `pids`. */
function connectionOwners(port: number, pids: number[]): Map<number, number> {
  const inodeOf = new Map<string, number>() // server-side socket inode → client port
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (f.length < 10 || f[3] !== '01') continue // ESTABLISHED only
    if (parseInt(f[1]!.split(':')[1]!, 16) === port) inodeOf.set(f[9]!, parseInt(f[2]!.split(':')[1]!, 16))
  }
  const owners = new Map<number, number>()
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let target: string
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      } catch {
        continue // closed meanwhile
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      const clientPort = inode === undefined ? undefined : inodeOf.get(inode)
      if (clientPort !== undefined) owners.set(clientPort, pid)
    }
  }
  return owners
}

/** 300 GETs at once, each on its own kept-alive connection; returns status and client port of each. */
async function burst(t: { after: (fn: () => void) => void }, origin: string, key: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: Infinity })
  t.after(() => agent.destroy())
  return Promise.all(
    Array.from(
      { length: 300 },
      () =>
        new Promise<{ status: number; clientPort: number; body: any }>((resolve, reject) => {
          const req = request(
            `${origin}/v1/pets`,
            { agent, headers: { authorization: `Bearer ${key}` }, timeout: 20_000 },
            (res) => {
              const clientPort = res.socket.localPort!
              let text = ''
              res.setEncoding('utf8').on('data', (c: string) => (text += c))
              res.on('end', () => resolve({ status: res.statusCode!, clientPort, body: JSON.parse(text) }))
              res.on('error', reject)
            },
          )
          req.on('timeout', () => req.destroy(new Error('timed out')))
          req.on('error', reject)
          req.end()
        }),
    ),
  )
}

/** Bounded polling (at most 10 s) for the process `pid` that started at `started` to be gone. */
const gone = async (pid: number, started: string) => {
  for (let i = 0; i < 200 && startTimeOf(pid) === started; i++) await new Promise((r) => setTimeout(r, 50))
  return startTimeOf(pid) !== started
}

for (const database of ['a SQLite file', 'PostgreSQL'] as const) {
  test(
    `serve --workers 2 with REDIS_URL on ${database}: ` +
      'one exact quota over both workers, both answer, SIGTERM exits 0',
    async (t) => {
      if (postgresOnly(t)) return
      const databaseUrl = database === 'PostgreSQL' ? await postgresSchema(t) : tempDir(t, 'petstore-workers-').file
      const redis = redisPrefix(t)
      // Redis healthy, with a timeout a 300-request burst on this shared machine cannot trip (see three-instances).
      const { origin, process: primary } = await startInstance(
        t,
        { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, REDIS_TIMEOUT_MS: '1000' },
        ['--workers', '2'],
      )
      assert.equal(
        primary.stderr().match(/Pet store API/g)?.length,
        1,
        'one banner for the instance (on stderr), printed once both workers listen',
      )
      const workers = childrenOf(primary.pid)
      assert.equal(workers.length, 2, `children of the primary: ${workers.join(' ')}`)
      const started = new Map(workers.map((pid) => [pid, startTimeOf(pid)!]))
      t.after(() => {
        // Only these very processes (same pid and start time), should the primary have left them behind.
        for (const [pid, time] of started) if (startTimeOf(pid) === time) process.kill(pid, 'SIGKILL')
      })
      for (const pid of workers) assert.match(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /petstore\.js\0serve\0/)

      let run: { result: Awaited<ReturnType<typeof burst>>; oneMinute: boolean } | undefined
      for (let attempt = 0; attempt < 2 && !run?.oneMinute; attempt++) {
        const { key } = await accountKey(databaseUrl)
        run = await withinOneMinute(() => burst(t, origin, key))
      }
      assert.ok(run?.oneMinute, 'two bursts in a row straddled a minute boundary')
      assert.doesNotMatch(
        primary.stdout() + primary.stderr(),
        /rate-limit store unreachable/,
        'a worker fell back to per-process limits',
      )
      const answers = run.result
      assert.deepEqual(statusCounts(answers), { 200: 60, 429: 240 })

      // Every answer came from a worker (the server side of its connection is held by one), and from both of them.
      const port = Number(new URL(origin).port)
      const owners = connectionOwners(port, workers)
      const answeredBy = answers.map((a) => owners.get(a.clientPort))
      assert.ok(
        answeredBy.every((pid) => pid !== undefined),
        `${answeredBy.filter((p) => p === undefined).length} connections held by no worker`,
      )
      assert.deepEqual(new Set(answeredBy), new Set(workers))

      assert.deepEqual(await primary.stop(), { code: 0, signal: null }, primary.stderr())
      for (const [pid, time] of started)
        assert.ok(await gone(pid, time), `worker ${pid} still runs after the primary exited`)
      assert.doesNotMatch(primary.stderr(), /exited|starting another/, 'a worker was restarted')
    },
  )
}
