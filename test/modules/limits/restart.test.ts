// Without Redis, on the embedded database, the limits survive a restart (issue 34): a ban and the account's day (and
// minute) count are there again after a clean stop, exactly, and after kill -9 as far as they had been written
// behind (about once a second: the test waits for the write it relies on, read from the database file).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import SQLite from 'better-sqlite3'
import { runCli, tempDir } from '../../helpers/cli.js'
import { bearer } from '../../helpers/harness.js'
import { pollUntil } from '../../helpers/within.js'
import { accountKey, startInstance, withinOneMinute } from '../../scale/support.js'

interface Usage {
  windows: Array<{ name: string; used: number }>
  bans: Array<{ keyId: string; until: string }>
}

/** The account's counts and bans, as the running service tells the CLI. */
async function usageOf(file: string, accountId: string, origin: string): Promise<Usage> {
  const r = await runCli(['accounts', 'usage', accountId, '--url', origin, '--json'], { DATABASE_URL: file })
  assert.equal(r.code, 0, r.stderr)
  return JSON.parse(r.stdout) as Usage
}
const used = (usage: Usage, name: string) => usage.windows.find((w) => w.name === name)?.used

/** The day count the database holds for the account (what a crash would leave). */
function keptDayCount(file: string, accountId: string): number | undefined {
  const db = new SQLite(file, { readonly: true })
  try {
    const row = db
      .prepare("select count from rate_limit_counters where subject = ? and kind = 'window' and name = 'day'")
      .get(`account:${accountId}`) as { count: number | bigint } | undefined
    return row === undefined ? undefined : Number(row.count)
  } finally {
    db.close()
  }
}

test('without Redis, a ban and the day survive a clean restart exactly, and kill -9 as far as written', async (t) => {
  const { file } = tempDir(t, 'petstore-limits-restart-')
  const env = { DATABASE_URL: file }

  // A free key (60 a minute, 1,000 a day) pushed into its ban: 60 admitted, then 31 refusals within the minute.
  let run: { result: number[]; oneMinute: boolean } | undefined
  let banned = { accountId: '', key: '' }
  let instance = await startInstance(t, env)
  for (let attempt = 0; attempt < 2 && !run?.oneMinute; attempt++) {
    banned = await accountKey(file)
    run = await withinOneMinute(async () => {
      const statuses: number[] = []
      for (let i = 0; i < 92; i++)
        statuses.push((await fetch(`${instance.origin}/v1/pets`, { headers: bearer(banned.key) })).status)
      return statuses
    })
  }
  assert.ok(run?.oneMinute, 'two bursts in a row straddled a minute boundary')
  assert.equal(run!.result.filter((s) => s === 200).length, 60)
  const before = await usageOf(file, banned.accountId, instance.origin)
  assert.equal(before.bans.length, 1, 'banned')
  assert.equal(used(before, 'day'), 60)

  // A clean restart: the same ban, the same day.
  await instance.process.stop()
  instance = await startInstance(t, env)
  const refused = await fetch(`${instance.origin}/v1/pets`, { headers: bearer(banned.key) })
  assert.equal(refused.status, 429)
  assert.equal(((await refused.json()) as { code: string }).code, 'temporarily_banned')
  const after = await usageOf(file, banned.accountId, instance.origin)
  assert.deepEqual(after.bans, before.bans)
  assert.equal(used(after, 'day'), 60)

  // kill -9 once the counts are written: another account's 10 requests are there after the restart.
  const other = await accountKey(file)
  for (let i = 0; i < 10; i++)
    assert.equal((await fetch(`${instance.origin}/v1/pets`, { headers: bearer(other.key) })).status, 200)
  await pollUntil('the ten requests written behind', async () =>
    keptDayCount(file, other.accountId) === 10 ? true : undefined,
  )
  process.kill(instance.process.pid, 'SIGKILL')
  await instance.process.exited
  instance = await startInstance(t, env)
  assert.equal(used(await usageOf(file, other.accountId, instance.origin), 'day'), 10)
  assert.equal((await usageOf(file, banned.accountId, instance.origin)).bans.length, 1, 'still banned')
  await instance.process.stop()
})
