// A real database outage in the log: PostgreSQL cut off by a relay while the message worker polls and requests
// keep coming. The log (pino, captured) has one warning when it starts, a count of the failed calls at most every
// 30 s (on the test clock) while it lasts, one line when the database answers again, and no stack trace in between
// (before ops/outage-log.ts the worker wrote a full stack every poll, and each refused request another one).
// Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { pino } from 'pino'
import { keyEnvironment } from '../../src/modules/accounts/api-keys.js'
import { buildApp } from '../../src/main/api-app.js'
import { createManualClock } from '../../src/kernel/clock.js'
import { loadConfig } from '../../src/kernel/config.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { createLogSink } from '../../src/modules/messages/sinks.js'
import { createMessageWorker } from '../../src/modules/messages/worker.js'
import { buildServices } from '../../src/main/services.js'
import { testActor } from '../helpers/actors.js'
import { postgresOnly, postgresSchema, redisStore } from '../helpers/backend.js'
import { bearer } from '../helpers/harness.js'
import { tcpProxy } from '../helpers/tcp-proxy.js'
import { pollUntil, within } from '../helpers/within.js'

type Line = Record<string, unknown> & { level: number; msg: string }

test(
  'PostgreSQL cut off for 100 s (test clock): one warning, ' + 'a count every 30 s, one line at the end, no stack',
  async (t) => {
    if (postgresOnly(t)) return
    const admin = new URL(process.env.TEST_DATABASE_URL!)
    const proxy = await tcpProxy(t, { host: admin.hostname, port: Number(admin.port || 5432) })
    await proxy.start()
    const url = new URL(await postgresSchema(t))
    url.port = String(proxy.port)
    const config = loadConfig(
      { LOG_LEVEL: 'info' },
      { databaseUrl: url.toString(), redisUrl: process.env.TEST_REDIS_URL },
    )
    const handle = openDatabase(url.toString(), { poolSize: 4, timeoutMs: config.databaseTimeoutMs })
    await migrateToLatest(handle.db)
    const clock = createManualClock(new Date('2027-01-01T00:00:00Z'))

    // Everything the process logs, in order, as written.
    const raw: string[] = []
    const stream = { write: (line: string) => void raw.push(line) }
    const log = pino({ level: 'info' }, stream)
    const rateLimitStore = await redisStore(t)
    const services = await buildServices({
      config,
      db: handle.db,
      pool: handle.pool,
      engine: handle.engine,
      clock,
      rateLimitStore,
      log,
    })
    const app = await buildApp({ config, db: handle.db, clock, services, logger: { level: 'info', stream } })
    // The worker's polls, counted as they end (with a failure while the database is cut off): the events the test
    // waits on, instead of fixed times.
    let pollsEnded = 0
    const messages = {
      ...services.messages,
      claimDue: (input: Parameters<typeof services.messages.claimDue>[0]) =>
        services.messages.claimDue(input).finally(() => pollsEnded++),
    }
    /** Resolves once a poll that started after this call has ended (the one under way now may end first). */
    const nextPoll = () => {
      const target = pollsEnded + 2
      return pollUntil('a poll of the message worker', async () => (pollsEnded >= target ? true : undefined), 20_000, 5)
    }
    const worker = createMessageWorker({
      messages,
      sink: createLogSink(app.log),
      clock,
      log: app.log,
      maxAttempts: 3,
      retryScheduleMs: [1_000],
      pollMs: 20,
      databaseOutage: services.outages.database,
    })
    t.after(async () => {
      await worker.stop()
      await app.close()
      await services.close()
      await rateLimitStore.close()
      await handle.close()
    })
    const account = await services.accounts.createAccount({ actor: testActor, name: 'outage log', plan: 'business' })
    const { key } = await services.accounts.createApiKey({
      actor: testActor,
      accountId: account.id,
      environment: keyEnvironment(config.environment),
    })
    const get = () => within(app.inject({ url: '/v1/pets', headers: bearer(key) }), 'GET /v1/pets')
    assert.equal((await get()).statusCode, 200)
    worker.start()
    await nextPoll()
    const before = raw.length

    await proxy.stop()
    const statuses: number[] = []
    for (let step = 0; step < 10; step++) {
      clock.advance(10_000)
      // Requests refused while it is down, and a poll of the worker (every 20 ms) that fails too.
      for (let i = 0; i < 2; i++) statuses.push((await get()).statusCode)
      await nextPoll()
    }
    assert.deepEqual(new Set(statuses), new Set([503]))
    await proxy.start()
    const lines = () => raw.slice(before).map((l) => JSON.parse(l) as Line)
    await pollUntil(
      'the end of the outage in the log',
      async () => (lines().some((l) => l.msg === 'database reachable again') ? true : undefined),
      20_000,
      20,
    )

    const database = lines().filter((l) => l.dependency === 'database')
    const [start, ...rest] = database
    const end = rest.pop()!
    assert.equal(start!.level, 40)
    assert.match(start!.msg, /^database unreachable: /)
    assert.equal(end.msg, 'database reachable again')
    assert.ok(
      rest.every((l) => l.msg === 'database still unreachable' && l.level === 40),
      JSON.stringify(rest),
    )
    // The failures came at +10 s, +20 s … +100 s of the test clock: a count at +40, +70 and +100 s, 30 s apart.
    assert.deepEqual(
      rest.map((l) => l.downMs),
      [30_000, 60_000, 90_000],
    )
    for (const l of rest)
      assert.ok(
        (l.failedCalls as number) >= 6,
        `each count has the 2 requests of each of 3 steps at least: ${JSON.stringify(l)}`,
      )
    const counted = 1 + rest.reduce((sum, l) => sum + (l.failedCalls as number), 0)
    assert.ok((end.failedCalls as number) >= counted, `the end line counts every failed call: ${JSON.stringify(end)}`)

    if (process.env.SHOW_LOG)
      console.log(
        raw
          .slice(before)
          .filter((l) => !l.includes('"msg":"request"'))
          .join(''),
      )
    const during = raw.slice(
      before,
      before + raw.slice(before).findIndex((l) => l.includes('"database reachable again"')),
    )
    assert.ok(during.length > 0)
    assert.deepEqual(
      during.filter((l) => l.includes('"stack"')),
      [],
      'no stack trace during the outage',
    )
    assert.deepEqual(
      lines().filter((l) => l.msg === 'database unavailable' || l.msg === 'message worker step failed'),
      [],
      'no line per refused request or failed poll',
    )
    // Each refused request still has its own request line, with its code.
    const refused = lines().filter((l) => l.msg === 'request' && l.status === 503)
    assert.equal(refused.length, 20)
    assert.ok(refused.every((l) => l.errorCode === 'service_unavailable'))
    assert.equal((await get()).statusCode, 200)
  },
)
