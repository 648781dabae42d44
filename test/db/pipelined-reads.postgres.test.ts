// The pipelined read connections (src/db/pipelined-reads.ts) on a real PostgreSQL, reached through a relay that
// counts what the client writes: the reads of one turn go out in one write and each gets its own answer; a read
// that fails fails alone; a connection that dies fails its reads as "unavailable" (a 503 to the caller) and the
// next read is served on a new one. Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { test } from 'node:test'
import pg from 'pg'
import { createPipelinedReads } from '../../src/db/pipelined-reads.js'
import { isDatabaseUnavailable } from '../../src/db/unavailable.js'
import { postgresOnly } from '../helpers/backend.js'
import { pollUntil } from '../helpers/within.js'

type After = { after: (fn: () => Promise<void>) => void }

/** A relay to PostgreSQL that counts the chunks the client sends, and can cut every connection. */
async function countingRelay(t: After) {
  const target = new URL(process.env.TEST_DATABASE_URL!)
  const sockets = new Set<Socket>()
  let chunks = 0
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('error', () => {})
      s.on('close', () => {
        sockets.delete(s)
        client.destroy()
        upstream.destroy()
      })
    }
    client.on('data', (chunk) => {
      chunks++
      upstream.write(chunk)
    })
    upstream.pipe(client)
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  t.after(async () => {
    for (const s of sockets) s.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  const url = new URL(target)
  url.port = String((server.address() as AddressInfo).port)
  return { url: url.toString(), chunks: () => chunks, cutAll: () => sockets.forEach((s) => s.destroy()) }
}

async function readsThrough(t: After, connections = 1) {
  const relay = await countingRelay(t)
  const reads = createPipelinedReads({
    driver: pg,
    config: { connectionString: relay.url, query_timeout: 5_000 },
    connections,
  })
  t.after(() => reads.close())
  return { relay, reads }
}

const numbered = (reads: ReturnType<typeof createPipelinedReads>, n: number) =>
  reads.query('pipelined_test_n', "select $1::int as n, repeat('x', $1::int) as pad", [n]) as Promise<
    { n: number; pad: string }[]
  >

test('the reads of one turn go out in one write, each answered with its own rows', async (t) => {
  if (postgresOnly(t)) return
  const { relay, reads } = await readsThrough(t)
  await numbered(reads, 0) // connected, and the statement prepared
  const before = relay.chunks()
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => numbered(reads, i + 1)))
  assert.deepEqual(
    answers.map((rows) => rows[0]!.n),
    Array.from({ length: 50 }, (_, i) => i + 1),
  )
  assert.ok(answers.every((rows) => rows[0]!.pad.length === rows[0]!.n))
  // One write of the fifty; a slow relay may see it split, never anywhere near one per read.
  const writes = relay.chunks() - before
  assert.ok(writes <= 3, `50 reads went out in ${writes} writes`)
})

test('a read that fails fails alone: the reads sent with it are answered', async (t) => {
  if (postgresOnly(t)) return
  const { reads } = await readsThrough(t)
  const results = await Promise.allSettled([
    numbered(reads, 1),
    reads.query('pipelined_test_fail', 'select 1 / $1::int as x', [0]),
    numbered(reads, 3),
  ])
  assert.equal(results[0].status, 'fulfilled')
  assert.equal(results[1].status, 'rejected')
  assert.match(String((results[1] as PromiseRejectedResult).reason), /division by zero/)
  assert.equal(
    isDatabaseUnavailable((results[1] as PromiseRejectedResult).reason),
    false,
    'a wrong statement is not an outage',
  )
  assert.deepEqual((results[2] as PromiseFulfilledResult<{ n: number }[]>).value[0]!.n, 3)
})

test('a connection that dies fails its reads as unavailable, and the next read is served on a new one', async (t) => {
  if (postgresOnly(t)) return
  const { relay, reads } = await readsThrough(t, 2)
  // One turn's reads go to one connection, the next turn's to the other.
  await numbered(reads, 1)
  await numbered(reads, 2)
  assert.equal(reads.open(), 2)
  const sent = relay.chunks()
  const inFlight = Promise.allSettled([
    reads.query('pipelined_test_sleep', 'select pg_sleep($1::float8)', [1]),
    reads.query('pipelined_test_sleep', 'select pg_sleep($1::float8)', [1]),
  ])
  // Cut once the reads have gone through the relay to the database (they are in flight), not after a fixed time:
  // on a loaded machine that could come before they were sent, or after they were answered.
  await pollUntil('the reads sent through the relay', async () => (relay.chunks() > sent ? true : undefined), 10_000, 1)
  relay.cutAll()
  for (const result of await inFlight) {
    assert.equal(result.status, 'rejected')
    assert.ok(
      isDatabaseUnavailable((result as PromiseRejectedResult).reason),
      String((result as PromiseRejectedResult).reason),
    )
  }
  const after = await Promise.all([numbered(reads, 7), numbered(reads, 8)])
  assert.deepEqual(
    after.map((rows) => rows[0]!.n),
    [7, 8],
  )
})

test('a read that times out drops its connection at once: the next read does not wait behind it', async (t) => {
  if (postgresOnly(t)) return
  const relay = await countingRelay(t)
  const reads = createPipelinedReads({
    driver: pg,
    config: { connectionString: relay.url, query_timeout: 300 },
    connections: 1,
  })
  t.after(() => reads.close())
  await numbered(reads, 1)
  const slow = reads.query('pipelined_test_sleep', 'select pg_sleep($1::float8)', [2])
  await assert.rejects(slow, /Query read timeout/)
  const started = performance.now()
  assert.equal((await numbered(reads, 5))[0]!.n, 5)
  assert.ok(performance.now() - started < 250, `the next read took ${Math.round(performance.now() - started)} ms`)
})

test('after close, a read is refused at once', async (t) => {
  if (postgresOnly(t)) return
  const { reads } = await readsThrough(t)
  await numbered(reads, 1)
  await reads.close()
  assert.equal(reads.open(), 0)
  await assert.rejects(numbered(reads, 2), (error: Error) => isDatabaseUnavailable(error))
})
