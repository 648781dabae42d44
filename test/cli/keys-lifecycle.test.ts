// `petstore keys create --name --expires`, `keys list` (name, state, last used, expiry) and `keys roll --grace`,
// run as real processes on a database file; the keys are then tried on an app over that file.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { appOnFile } from '../helpers/app-on-file.js'
import { cliOn } from '../helpers/cli.js'
import { bearer, errorOf } from '../helpers/harness.js'
import { pollUntil } from '../helpers/within.js'

interface Key {
  id: string
  key: string
  name: string | null
  expiresAt: string | null
  lastUsedAt: string | null
  state: string
}

test('keys create --name --expires, then keys list shows the name, state, last used and expiry', async (t) => {
  const cli = cliOn(t)
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Named'])
  const created = await cli.json<Key>([
    'keys',
    'create',
    '--account',
    accountId,
    '--name',
    'CI deploys',
    '--expires',
    '2099-06-30T00:00:00+02:00',
  ])
  assert.equal(created.name, 'CI deploys')
  assert.equal(created.expiresAt, '2099-06-29T22:00:00.000Z')
  const app = await appOnFile(t, cli.file)
  assert.equal((await app.inject({ url: '/v1/pets', headers: bearer(created.key) })).statusCode, 200)

  const listed = await pollUntil('last used written', async () => {
    const { keys } = await cli.json<{ keys: Key[] }>(['keys', 'list', '--account', accountId])
    return keys[0]?.lastUsedAt ? keys : undefined
  })
  assert.match(listed[0]!.lastUsedAt!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/, 'minute precision')
  assert.equal(listed[0]!.state, 'active')
  const plain = await cli.run(['keys', 'list', '--account', accountId])
  for (const part of [
    '"CI deploys"',
    'ACTIVE',
    `last used ${listed[0]!.lastUsedAt}`,
    'expires 2099-06-29T22:00:00.000Z',
  ])
    assert.ok(plain.stdout.includes(part), `${part} in ${plain.stdout}`)

  for (const [args, reason] of [
    [['--expires', '2020-01-01T00:00:00Z'], /not in the future/],
    [['--expires', '2099-06-30'], /ISO 8601 instant/],
    [['--name', 'x'.repeat(101)], /at most 100 characters/],
  ] as const) {
    const refused = await cli.run(['keys', 'create', '--account', accountId, ...args])
    assert.equal(refused.code, 2, refused.stderr)
    assert.match(refused.stderr, reason)
  }
})

test(
  'keys roll KEY_ID --grace SECONDS: a new secret; ' + 'the old one works during the grace, and --grace is checked',
  async (t) => {
    const cli = cliOn(t)
    const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Roller'])
    const old = await cli.json<Key>(['keys', 'create', '--account', accountId, '--name', 'backend'])
    for (const grace of ['-1', '604801', '1.5', 'soon']) {
      const refused = await cli.run(['keys', 'roll', old.id, '--grace', grace])
      assert.equal(refused.code, 2, `${grace}: ${refused.stderr}`)
      assert.match(refused.stderr, /grace/)
    }
    assert.equal((await cli.run(['keys', 'roll', old.id])).code !== 0, true, '--grace is required')

    const rolled = await cli.json<{ previous: Key & { graceEndsAt: string }; created: Key }>([
      'keys',
      'roll',
      old.id,
      '--grace',
      '3600',
    ])
    assert.equal(rolled.created.name, 'backend')
    assert.notEqual(rolled.created.key, old.key)
    const app = await appOnFile(t, cli.file)
    const call = (key: string) => app.inject({ url: '/v1/pets', headers: bearer(key) })
    assert.equal((await call(old.key)).statusCode, 200, 'the old key works during the grace period')
    assert.equal((await call(rolled.created.key)).statusCode, 200)

    const again = await cli.run(['keys', 'roll', old.id, '--grace', '0'])
    assert.equal(again.code, 1)
    assert.match(again.stderr, new RegExp(`already rolled; roll its replacement ${rolled.created.id}`))

    const now = await cli.json<{ previous: Key; created: Key }>(['keys', 'roll', rolled.created.id, '--grace', '0'])
    const refused = await call(rolled.created.key)
    assert.equal(refused.statusCode, 401)
    assert.match(errorOf(refused).message, /^This API key was rolled; its grace period ended at /)
    assert.equal((await call(now.created.key)).statusCode, 200)
  },
)
