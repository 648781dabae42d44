// `petstore serve` as a real process: requests counted in memory reach the database when it is stopped with
// SIGTERM (well within the 5 s flush interval), so a restart keeps them.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { openDatabase } from '../../../src/db/database.js'
import { tempDir } from '../../helpers/cli.js'
import { freePort, spawnServe } from '../../helpers/serve.js'

test('SIGTERM writes the buffered usage counts before the process exits', async (t) => {
  const { dir } = tempDir(t, 'petstore-usage-')
  const file = join(dir, 'petstore.db')
  const [port, messagesPort] = [await freePort(), await freePort()]
  const server = spawnServe(t, {
    HOST: '127.0.0.1',
    PORT: String(port),
    MESSAGES_PORT: String(messagesPort),
    DATABASE_URL: file,
  })
  const [, base] = await server.waitFor(/at (http:\/\/\S+\/v1)\s/)
  await server.waitFor(/^\s*curl .*$/m)
  const [key] = server.stderr().match(/ps_test_[A-Za-z0-9_-]+/)!
  for (let i = 0; i < 7; i++)
    assert.equal((await fetch(`${base}/pets`, { headers: { authorization: `Bearer ${key}` } })).status, 200)
  assert.deepEqual(await server.stop(), { code: 0, signal: null })

  const handle = openDatabase(file)
  t.after(() => handle.close())
  const rows = await handle.db.selectFrom('usage_minutes').select(['admitted', 'refused']).execute()
  assert.deepEqual(
    rows.map((r) => [Number(r.admitted), Number(r.refused)]),
    [[7, 0]],
  )
  const days = await handle.db.selectFrom('usage_days').select(['admitted']).execute()
  assert.deepEqual(
    days.map((r) => Number(r.admitted)),
    [7],
  )
})
