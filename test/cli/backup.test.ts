// `petstore backup FILE`, and the README's restore drill done for real on SQLite: the service under write load,
// a backup taken meanwhile, the service stopped, the backup put in place, the service started on it; every write
// acknowledged before the backup started is there, none sent after it ended is, and the file passes its check.
import assert from 'node:assert/strict'
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import SQLite from 'better-sqlite3'
import { cliOn, oneLineFailure } from '../helpers/cli.js'
import { freePort, spawnServe } from '../helpers/serve.js'
import { pollUntil } from '../helpers/within.js'
import { untilReady } from './until-ready.js'

/** Parallel writers of the load. */
const WRITERS = 12

interface Write {
  id: string
  sentAt: number
  answeredAt: number
}

/** Creates pets as fast as WRITERS clients can until `stop()`; every answer must be a 201. */
function writeLoad(base: string, key: string) {
  const writes: Write[] = []
  const failures: string[] = []
  let running = true
  let n = 0
  const writer = async () => {
    while (running) {
      const sentAt = performance.now()
      const res = await fetch(`${base}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Drill ${n++}`, categoryId: 1 }),
        signal: AbortSignal.timeout(10_000),
      })
      const body = (await res.json()) as { id?: string }
      if (res.status === 201) writes.push({ id: String(body.id), sentAt, answeredAt: performance.now() })
      else failures.push(`${res.status} ${JSON.stringify(body)}`)
    }
  }
  const done = Promise.all(Array.from({ length: WRITERS }, writer))
  return {
    writes,
    failures,
    async stop() {
      running = false
      await done
    },
  }
}

/** The ids of `ids` the service at `base` does not have (GET → 404). */
async function missing(base: string, key: string, ids: string[]): Promise<string[]> {
  const absent: string[] = []
  for (let i = 0; i < ids.length; i += 20) {
    await Promise.all(
      ids.slice(i, i + 20).map(async (id) => {
        const res = await fetch(`${base}/v1/pets/${id}`, {
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(10_000),
        })
        await res.arrayBuffer()
        if (res.status === 404) absent.push(id)
        else assert.equal(res.status, 200, `GET /v1/pets/${id}`)
      }),
    )
  }
  return absent
}

async function startService(t: Parameters<typeof cliOn>[0], file: string) {
  const port = await freePort()
  const server = spawnServe(t, {
    HOST: '127.0.0.1',
    PORT: String(port),
    MESSAGES_PORT: String(await freePort()),
    DATABASE_URL: file,
  })
  await untilReady(port, server.exited)
  return { server, base: `http://127.0.0.1:${port}` }
}

test('restore drill: a backup taken under write load holds every write acknowledged before it started', async (t) => {
  const cli = cliOn(t)
  const account = await cli.json([
    'accounts',
    'create',
    '--name',
    'Drill',
    '--plan',
    'enterprise',
    '--per-minute',
    '1000000',
    '--per-day',
    '100000000',
  ])
  const { key } = await cli.json<{ key: string }>(['keys', 'create', '--account', account.id])
  const backupFile = join(cli.dir, 'backup.db')

  const { server, base } = await startService(t, cli.file)
  const load = writeLoad(base, key)
  // Bounded waits on the writes themselves (a write that fails ends them at once).
  const writes = (what: string, count: () => number) =>
    pollUntil(
      what,
      async () => {
        assert.deepEqual(load.failures, [], 'a write failed')
        return count() >= 50 || undefined
      },
      30_000,
      20,
    )
  await writes('50 writes acknowledged before the backup', () => load.writes.length)
  const backupStarted = performance.now()
  const backup = await cli.json(['backup', backupFile])
  const backupEnded = performance.now()
  // Writes go on after the backup, so that some are certainly not in it.
  await writes('50 writes sent after the backup', () => load.writes.filter((w) => w.sentAt > backupEnded).length)
  await load.stop()
  assert.deepEqual(load.failures, [])
  assert.deepEqual(await server.stop(), { code: 0, signal: null })

  const before = load.writes.filter((w) => w.answeredAt < backupStarted)
  const during = load.writes.filter((w) => w.answeredAt >= backupStarted && w.sentAt <= backupEnded)
  const after = load.writes.filter((w) => w.sentAt > backupEnded)
  assert.ok(before.length >= 50 && after.length >= 50, `${before.length} writes before, ${after.length} after`)
  assert.ok(during.length > 0, 'the service acknowledged writes while the backup ran')
  t.diagnostic(
    `${before.length} writes acknowledged before the backup, ${during.length} while it ran, ` +
      `${after.length} sent after it; ${backup.pages} pages`,
  )
  assert.equal(backup.file, backupFile)

  // The README's restore: the service is stopped; the database and its -wal and -shm files make way for the copy.
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${cli.file}${suffix}`, { force: true })
  copyFileSync(backupFile, cli.file)
  const check = new SQLite(cli.file, { readonly: true })
  try {
    assert.equal(check.pragma('integrity_check', { simple: true }), 'ok')
  } finally {
    check.close()
  }

  const restored = await startService(t, cli.file)
  assert.deepEqual(
    await missing(
      restored.base,
      key,
      before.map((w) => w.id),
    ),
    [],
    'writes acknowledged before the backup are missing',
  )
  const later = after.map((w) => w.id)
  assert.deepEqual(
    (await missing(restored.base, key, later)).sort(),
    [...later].sort(),
    'writes sent after the backup are in it: the restore did not happen',
  )
  assert.deepEqual(await restored.server.stop(), { code: 0, signal: null })
})

test('backup refuses to replace a file unless --force, and to write over the database itself', async (t) => {
  const cli = cliOn(t)
  await cli.json(['accounts', 'create', '--name', 'Kept'])
  const target = join(cli.dir, 'copy.db')
  writeFileSync(target, 'not a database')

  const refused = await cli.run(['backup', target])
  assert.match(oneLineFailure(refused), /exists; pass --force/)
  assert.equal(refused.code, 1)
  assert.equal(readFileSync(target, 'utf8'), 'not a database')

  const forced = await cli.run(['backup', target, '--force'])
  assert.equal(forced.code, 0, forced.stderr)
  assert.match(forced.stdout, /^backed up .* to .*copy\.db \(\d+ bytes, \d+ ms\)\n$/)
  const copy = new SQLite(target, { readonly: true })
  try {
    assert.deepEqual(copy.prepare('select name from accounts').pluck().all(), ['Kept'])
  } finally {
    copy.close()
  }

  const itself = await cli.run(['backup', cli.file, '--force'])
  assert.match(oneLineFailure(itself), /the database itself/)
  assert.equal(itself.code, 2)
})

test('backup on PostgreSQL exits 1 with one line pointing to pg_dump, without showing the URL', async (t) => {
  const cli = cliOn(t)
  const r = await cli.run(['backup', join(cli.dir, 'copy.db')], {
    DATABASE_URL: 'postgres://petstore:s3cret-pw@127.0.0.1:1/petstore',
  })
  const line = oneLineFailure(r)
  assert.equal(r.code, 1)
  assert.match(line, /pg_dump -Fc/)
  assert.doesNotMatch(line, /s3cret-pw|127\.0\.0\.1/)
})

test('backup of a database that does not exist exits 1 and creates nothing', async (t) => {
  const cli = cliOn(t)
  const missing = join(cli.dir, 'missing.db')
  const r = await cli.run(['backup', join(cli.dir, 'copy.db')], { DATABASE_URL: missing })
  assert.match(oneLineFailure(r), /no database at/)
  assert.equal(r.code, 1)
  assert.ok(!existsSync(missing))
  assert.ok(!existsSync(join(cli.dir, 'copy.db')))
})
