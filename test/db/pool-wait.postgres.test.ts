// Waiting for a free pooled connection is bounded by the statement timeout, not by the 2 s connect timeout: a burst
// queued behind a busy but healthy database is served (CI once saw 200 concurrent transactions refused with "timeout
// exceeded when trying to connect"). Opening a connection that does not answer still fails after 2 s. Runs in the
// PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { openDatabase } from '../../src/db/database.js'
import { isDatabaseUnavailable } from '../../src/db/unavailable.js'
import { postgresOnly, postgresSchema } from '../helpers/backend.js'
import { tcpProxy } from '../helpers/tcp-proxy.js'

test('a query that waits 2.5 s for the only pooled connection is served', async (t) => {
  if (postgresOnly(t)) return
  const handle = openDatabase(await postgresSchema(t), { poolSize: 1, pipelinedConnections: 0, timeoutMs: 5_000 })
  t.after(() => handle.close())
  const busy = sql`select pg_sleep(2.5)`.execute(handle.db)
  const started = performance.now()
  const { rows } = await sql<{ one: number }>`select 1 as one`.execute(handle.db)
  const waited = performance.now() - started
  await busy
  assert.deepEqual(rows, [{ one: 1 }])
  assert.ok(waited >= 2_400, `it waited for the connection (${Math.round(waited)} ms)`)
})

test(
  'a database that accepts the connection and never answers: ' + 'the connect gives up after 2 s, as unavailable',
  async (t) => {
    if (postgresOnly(t)) return
    const silent = await tcpProxy(t, { host: '127.0.0.1', port: 5432 })
    await silent.start('blackhole')
    const handle = openDatabase(`postgres://postgres@127.0.0.1:${silent.port}/postgres`, {
      poolSize: 1,
      pipelinedConnections: 0,
      timeoutMs: 5_000,
    })
    t.after(() => handle.close())
    const started = performance.now()
    const error = await sql`select 1`.execute(handle.db).then(
      () => assert.fail('a silent server answered'),
      (e: unknown) => e,
    )
    const ms = performance.now() - started
    assert.ok(isDatabaseUnavailable(error), `a 503, not a 500: ${String(error)}`)
    assert.ok(
      ms >= 1_900 && ms < 4_000,
      `gave up after ${Math.round(ms)} ms (the connect timeout is 2 s, the pool's wait 5 s)`,
    )
  },
)
