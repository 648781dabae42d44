// The settings every SQLite connection is opened with: what durability, concurrency with the CLI and memory
// rely on. Read back from SQLite itself.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { openDatabase } from '../../src/db/database.js'
import { sqliteOnly } from '../helpers/backend.js'
import { tempDir } from '../helpers/cli.js'

async function pragmas(t: Parameters<typeof tempDir>[0], options: Parameters<typeof openDatabase>[1] = {}) {
  const handle = openDatabase(tempDir(t, 'petstore-pragmas-').file, options)
  t.after(() => handle.close())
  const read = async (name: string) =>
    Object.values((await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(handle.db)).rows[0]!)[0]
  return { read }
}

test(
  'SQLite: WAL, every commit flushed (synchronous=FULL), ' + 'foreign keys, a 5 s busy wait, a 2 MiB page cache',
  async (t) => {
    if (sqliteOnly(t, 'connection settings of SQLite')) return
    const { read } = await pragmas(t)
    assert.equal(await read('journal_mode'), 'wal')
    assert.equal(Number(await read('synchronous')), 2)
    assert.equal(Number(await read('foreign_keys')), 1)
    assert.equal(Number(await read('busy_timeout')), 5000)
    // Negative: KiB. better-sqlite3's own build default would be -16000.
    assert.equal(Number(await read('cache_size')), -2048)
  },
)

test('SQLite: the page cache is an option (the server passes SQLITE_CACHE_MB)', async (t) => {
  if (sqliteOnly(t, 'connection settings of SQLite')) return
  const { read } = await pragmas(t, { sqliteCacheMb: 64 })
  assert.equal(Number(await read('cache_size')), -64 * 1024)
})
