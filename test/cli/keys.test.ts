// `petstore keys create | list | revoke`, run as a real process; the keys are then tried on the app.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { appOnFile, servicesOnFile } from '../helpers/app-on-file.js'
import { cliOn, databaseBytes } from '../helpers/cli.js'
import { bearer, errorOf } from '../helpers/harness.js'

interface CreatedKey {
  id: string
  key: string
  accountId: string
}

/** The random part after the prefix: base64url, at least 32 bytes once decoded. */
function assertRandomPart(key: string, prefix: string): void {
  assert.ok(key.startsWith(prefix), `${key} does not start with ${prefix}`)
  const encoded = key.slice(prefix.length)
  assert.match(encoded, /^[A-Za-z0-9_-]+$/)
  assert.ok(Buffer.from(encoded, 'base64url').length >= 32, `only ${Buffer.from(encoded, 'base64url').length} bytes`)
}

test('keys create --account ID --json prints the key id and a ps_test_ secret of ≥ 32 random bytes', async (t) => {
  const cli = cliOn(t)
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Keys'])
  const first = await cli.json<CreatedKey>(['keys', 'create', '--account', accountId])
  const second = await cli.json<CreatedKey>(['keys', 'create', '--account', accountId])
  for (const created of [first, second]) {
    assert.equal(typeof created.id, 'string')
    assert.equal(created.accountId, accountId)
    assertRandomPart(created.key, 'ps_test_')
  }
  assert.notEqual(first.id, second.id)
  assert.notEqual(first.key, second.key)

  const app = await appOnFile(t, cli.file)
  const res = await app.inject({ url: '/v1/pets', headers: bearer(first.key) })
  assert.equal(res.statusCode, 200, res.body)
})

test('with PETSTORE_ENV=production keys are ps_live_ and the production app accepts them', async (t) => {
  const cli = cliOn(t, { PETSTORE_ENV: 'production' })
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Live'])
  const created = await cli.json<CreatedKey>(['keys', 'create', '--account', accountId])
  assertRandomPart(created.key, 'ps_live_')

  const app = await appOnFile(t, cli.file, { PETSTORE_ENV: 'production' })
  const res = await app.inject({ url: '/v1/pets', headers: bearer(created.key) })
  assert.equal(res.statusCode, 200, res.body)
})

test('the secret is shown once: keys list and the database file never hold it, only its SHA-256', async (t) => {
  const cli = cliOn(t)
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Secretive'])
  const created = await cli.json<CreatedKey>(['keys', 'create', '--account', accountId])
  const secretPart = created.key.slice(-32)

  const listed = await cli.json<{ keys: Array<Record<string, unknown>> }>(['keys', 'list', '--account', accountId])
  assert.deepEqual(
    listed.keys.map((k) => k.id),
    [created.id],
  )
  assert.equal(listed.keys[0]?.accountId, accountId)
  assert.equal(listed.keys[0]?.revokedAt, null)
  const plain = await cli.run(['keys', 'list', '--account', accountId])
  assert.equal(plain.code, 0)
  assert.ok(plain.stdout.includes(created.id))
  for (const output of [
    JSON.stringify(listed),
    plain.stdout,
    plain.stderr,
    (await cli.run(['accounts', 'list'])).stdout,
  ]) {
    assert.ok(!output.includes(secretPart), `secret shown again: ${output}`)
  }

  const stored = databaseBytes(cli.dir)
  assert.ok(!stored.includes(secretPart), 'the secret is stored in the database')
  assert.ok(
    stored.includes(createHash('sha256').update(created.key).digest('hex')),
    'the SHA-256 of the key is not stored',
  )
})

test('keys revoke KEY_ID: the key worked before and is refused with 401 invalid_api_key from then on', async (t) => {
  const cli = cliOn(t)
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Revoker'])
  const doomed = await cli.json<CreatedKey>(['keys', 'create', '--account', accountId])
  const kept = await cli.json<CreatedKey>(['keys', 'create', '--account', accountId])
  const app = await appOnFile(t, cli.file)
  const call = (key: string) => app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal((await call(doomed.key)).statusCode, 200)

  const revoked = await cli.run(['keys', 'revoke', doomed.id])
  assert.equal(revoked.code, 0, revoked.stderr)
  assert.ok(revoked.stdout.includes(doomed.id))

  const refused = await call(doomed.key)
  assert.equal(refused.statusCode, 401)
  assert.equal(errorOf(refused).code, 'invalid_api_key')
  assert.equal((await call(kept.key)).statusCode, 200, 'only the revoked key is refused')

  const { keys } = await cli.json<{ keys: Array<{ id: string; revokedAt: string | null }> }>([
    'keys',
    'list',
    '--account',
    accountId,
  ])
  assert.equal(typeof keys.find((k) => k.id === doomed.id)?.revokedAt, 'string')
  assert.equal(keys.find((k) => k.id === kept.id)?.revokedAt, null)
})

test("keys list: a suspended account's working keys read SUSPENDED, ACTIVE again once it is reactivated", async (t) => {
  const cli = cliOn(t)
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Paused'])
  const { id: keyId } = await cli.json(['keys', 'create', '--account', accountId])
  const services = await servicesOnFile(t, cli.file)
  const actor = { kind: 'cli', user: 'test' } as const
  const stateOf = async () => (await cli.run(['keys', 'list', '--account', accountId])).stdout.split('  ')
  await services.accounts.suspend({ accountId, reason: 'unpaid', actor })
  assert.ok((await stateOf()).includes('SUSPENDED'), `key ${keyId}`)
  await services.accounts.reactivate({ accountId, actor })
  assert.ok(
    (await stateOf()).some((part) => part.startsWith('ACTIVE')),
    `key ${keyId}`,
  )
})
