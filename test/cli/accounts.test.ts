// `petstore accounts create | list | set-plan`, run as a real process on a fresh database file.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createAccountsRepository } from '../../src/modules/accounts/accounts.repository.js'
import { systemClock } from '../../src/kernel/clock.js'
import { openDatabase } from '../../src/db/database.js'
import { testActor } from '../helpers/actors.js'
import { cliOn, oneLineFailure } from '../helpers/cli.js'
import { removeOwnersOf } from '../../src/modules/integrators/account-owners.js'

interface Account {
  id: string
  name: string
  plan: string
  perMinute: number | null
  perDay: number | null
}

test('accounts create --json prints exactly one JSON object with the new id; the plan defaults to free', async (t) => {
  const cli = cliOn(t)
  const r = await cli.run(['accounts', 'create', '--name', 'Shelter North', '--json'])
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.stderr, '')
  const account = JSON.parse(r.stdout) as Account
  assert.equal(typeof account.id, 'string')
  assert.ok(account.id.length > 0)
  assert.equal(account.name, 'Shelter North')
  assert.equal(account.plan, 'free')

  const other = await cli.json<Account>(['accounts', 'create', '--name', 'Shelter South'])
  assert.notEqual(other.id, account.id)
})

test('accounts create takes each published plan, and enterprise with its custom quotas', async (t) => {
  const cli = cliOn(t)
  for (const plan of ['free', 'pro', 'business']) {
    const account = await cli.json<Account>(['accounts', 'create', '--name', plan, '--plan', plan])
    assert.equal(account.plan, plan)
  }
  const big = await cli.json<Account>([
    'accounts',
    'create',
    '--name',
    'Big',
    '--plan',
    'enterprise',
    '--per-minute',
    '5000',
    '--per-day',
    '2000000',
  ])
  assert.deepEqual([big.plan, big.perMinute, big.perDay], ['enterprise', 5000, 2000000])
})

test('enterprise needs both --per-minute and --per-day; a refused create stores nothing', async (t) => {
  const cli = cliOn(t)
  for (const quota of [[], ['--per-minute', '100'], ['--per-day', '1000']]) {
    const line = oneLineFailure(
      await cli.run(['accounts', 'create', '--name', 'E', '--plan', 'enterprise', ...quota, '--json']),
    )
    assert.match(line, /--per-minute/)
    assert.match(line, /--per-day/)
  }
  assert.deepEqual(await cli.json(['accounts', 'list']), { accounts: [] })
})

test('the published plans refuse custom quotas', async (t) => {
  const cli = cliOn(t)
  for (const [plan, flag] of [
    ['free', '--per-minute'],
    ['pro', '--per-day'],
    ['business', '--per-minute'],
  ] as const) {
    const line = oneLineFailure(
      await cli.run(['accounts', 'create', '--name', 'X', '--plan', plan, flag, '10', '--json']),
    )
    assert.match(line, /enterprise/)
  }
  assert.deepEqual(await cli.json(['accounts', 'list']), { accounts: [] })
})

test(
  'accounts list --json is one object listing every account in creation order; ' + 'the plain form names them too',
  async (t) => {
    const cli = cliOn(t)
    assert.deepEqual(await cli.json(['accounts', 'list']), { accounts: [] })
    const a = await cli.json<Account>(['accounts', 'create', '--name', 'Alpha'])
    const b = await cli.json<Account>(['accounts', 'create', '--name', 'Beta', '--plan', 'pro'])
    const { accounts } = await cli.json<{ accounts: Account[] }>(['accounts', 'list'])
    assert.deepEqual(accounts, [a, b])

    const plain = await cli.run(['accounts', 'list'])
    assert.equal(plain.code, 0)
    for (const account of [a, b]) {
      assert.ok(plain.stdout.includes(account.id), plain.stdout)
      assert.ok(plain.stdout.includes(account.name), plain.stdout)
    }
  },
)

test('accounts set-plan ID PLAN changes the plan; enterprise takes quotas, the others clear them', async (t) => {
  const cli = cliOn(t)
  const { id } = await cli.json<Account>(['accounts', 'create', '--name', 'Growing'])
  const planOf = async () =>
    (await cli.json<{ accounts: Account[] }>(['accounts', 'list'])).accounts.find((a) => a.id === id)

  const done = await cli.run(['accounts', 'set-plan', id, 'pro'])
  assert.equal(done.code, 0, done.stderr)
  assert.equal((await planOf())?.plan, 'pro')

  await cli.json(['accounts', 'set-plan', id, 'enterprise', '--per-minute', '700', '--per-day', '70000'])
  const custom = await planOf()
  assert.deepEqual([custom?.plan, custom?.perMinute, custom?.perDay], ['enterprise', 700, 70000])

  oneLineFailure(await cli.run(['accounts', 'set-plan', id, 'enterprise', '--per-minute', '800', '--json']))
  oneLineFailure(await cli.run(['accounts', 'set-plan', id, 'business', '--per-day', '5', '--json']))
  assert.equal((await planOf())?.perMinute, 700, 'a refused change leaves the account as it was')

  const back = await cli.json<Account>(['accounts', 'set-plan', id, 'free'])
  assert.deepEqual([back.plan, back.perMinute, back.perDay], ['free', null, null])
  assert.deepEqual(await planOf(), back)
})

test(
  'accounts create refuses an empty or blank --name and stores nothing; ' + 'a name with spaces inside is kept',
  async (t) => {
    const cli = cliOn(t)
    for (const name of ['', '   ', '\t'])
      assert.match(oneLineFailure(await cli.run(['accounts', 'create', '--name', name, '--json'])), /--name/)
    assert.deepEqual(await cli.json(['accounts', 'list']), { accounts: [] })
    assert.equal((await cli.json<Account>(['accounts', 'create', '--name', ' Shelter East '])).name, ' Shelter East ')
  },
)

test(
  'accounts create refuses a name with a control, ' + 'bidi-override or zero-width character, as key names are refused',
  async (t) => {
    const cli = cliOn(t)
    for (const [name, code] of [
      ['Acme\u202Eevil', 'U+202E'],
      ['Ac\u200Bme', 'U+200B'],
      ['Acme\u0007', 'U+0007'],
      ['Acme\u2029Corp', 'U+2029'],
    ] as const) {
      const r = await cli.run(['accounts', 'create', '--name', name, '--json'])
      const line = oneLineFailure(r)
      assert.equal(r.code, 2)
      assert.match(line, /--name.* cannot hold control characters, invisible formatting characters/)
      assert.ok(line.includes(code), line)
    }
    assert.deepEqual(await cli.json(['accounts', 'list']), { accounts: [] })
    assert.equal(
      (await cli.json<Account>(['accounts', 'create', '--name', 'Zoohandlung Müller 🐾'])).name,
      'Zoohandlung Müller 🐾',
    )
  },
)

test(
  'accounts list shows a suspended or deleted account as such; ' + 'neither gets a new key from keys create',
  async (t) => {
    const cli = cliOn(t)
    const quiet = await cli.json<Account>(['accounts', 'create', '--name', 'Quiet'])
    const gone = await cli.json<Account>(['accounts', 'create', '--name', 'Gone'])
    // An operator's changes (the console's), made on the same database file.
    const handle = openDatabase(cli.file)
    try {
      const accounts = createAccountsRepository({
        db: handle.db,
        clock: systemClock,
        removeWithAccount: removeOwnersOf,
      })
      await accounts.suspend({ accountId: quiet.id, reason: 'unpaid invoices', actor: testActor })
      await accounts.deleteAccount(gone.id, { actor: testActor })
    } finally {
      await handle.close()
    }
    const plain = await cli.run(['accounts', 'list'])
    assert.match(plain.stdout, new RegExp(`${quiet.id} .* suspended \\d{4}-`))
    assert.match(plain.stdout, new RegExp(`${gone.id} .* deleted \\d{4}-`))
    const listed = (
      await cli.json<{ accounts: Array<Account & { suspendedAt: string | null; deletedAt: string | null }> }>([
        'accounts',
        'list',
      ])
    ).accounts
    assert.ok(listed.find((a) => a.id === quiet.id)?.suspendedAt)
    assert.ok(listed.find((a) => a.id === gone.id)?.deletedAt)

    const suspended = await cli.run(['keys', 'create', '--account', quiet.id, '--json'])
    assert.match(oneLineFailure(suspended), /is suspended; it gets no new key until it is reactivated/)
    // The command line is right; the account's state refuses it: a failure at run time.
    assert.equal(suspended.code, 1)
    const deleted = await cli.run(['keys', 'create', '--account', gone.id, '--json'])
    assert.match(oneLineFailure(deleted), /was deleted; it gets no new key/)
    assert.equal(deleted.code, 1)
  },
)
