// Restricted keys from the command line (issue 26): `keys create --scopes`, `keys list` showing them, `keys restrict`
// (narrow only), the usage errors (exit 2) of an unknown, empty or widening scope list, a roll keeping the scopes,
// and the audit entries. Real processes on a database file; the app over the same file answers the key.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { AuditEvent } from '../../src/modules/audit/audit-event.js'
import { appOnFile } from '../helpers/app-on-file.js'
import { cliOn, oneLineFailure } from '../helpers/cli.js'
import { bearer, errorOf } from '../helpers/harness.js'

const ALL = [
  'pets:read',
  'pets:write',
  'orders:read',
  'orders:write',
  'messages:write',
  'webhooks:read',
  'webhooks:write',
]
type Key = { id: string; key: string; prefix: string; scopes: string[] }

test(
  'keys create --scopes makes a key that can do only that; ' +
    'keys list shows the scopes (text and --json); no --scopes is every scope',
  async (t) => {
    const cli = cliOn(t)
    const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Scoped'])
    // Given out of order and with blanks: stored in the canonical order.
    const reader = await cli.json<Key>([
      'keys',
      'create',
      '--account',
      accountId,
      '--name',
      'dashboard',
      '--scopes',
      'orders:read, pets:read',
    ])
    assert.deepEqual(reader.scopes, ['pets:read', 'orders:read'])
    const full = await cli.json<Key>(['keys', 'create', '--account', accountId])
    assert.deepEqual(full.scopes, ALL)

    const { keys } = await cli.json<{ keys: Key[] }>(['keys', 'list', '--account', accountId])
    assert.deepEqual(
      keys.map((k) => [k.id, k.scopes]),
      [
        [reader.id, ['pets:read', 'orders:read']],
        [full.id, ALL],
      ],
    )
    const lines = (await cli.run(['keys', 'list', '--account', accountId])).stdout.trim().split('\n')
    assert.match(lines.find((l) => l.startsWith(reader.id))!, / scopes pets:read,orders:read /)
    assert.match(lines.find((l) => l.startsWith(full.id))!, / scopes all /)

    const app = await appOnFile(t, cli.file)
    assert.equal((await app.inject({ url: '/v1/pets', headers: bearer(reader.key) })).statusCode, 200)
    const refused = await app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { ...bearer(reader.key), 'content-type': 'application/json' },
      payload: { name: 'Rex', categoryId: 1 },
    })
    assert.equal(errorOf(refused).code, 'insufficient_scope')
    assert.equal(refused.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="pets:write"')

    const { events } = await cli.json<{ events: AuditEvent[] }>(['audit', 'list', '--account', accountId])
    const created = events.find((e) => e.action === 'key.created' && e.target?.id === reader.id)!
    assert.deepEqual((created.changes as { after: { scopes: string[] } }).after.scopes, ['pets:read', 'orders:read'])
  },
)

test(
  'an unknown scope, an empty list, or a restrict without --scopes ' +
    'is a usage error (exit 2) naming the valid scopes; nothing is made',
  async (t) => {
    const cli = cliOn(t)
    const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Usage'])
    const unknown = await cli.run(['keys', 'create', '--account', accountId, '--scopes', 'pets:read,pets:delete'])
    assert.equal(unknown.code, 2)
    const line = oneLineFailure(unknown)
    assert.match(line, /"pets:delete"/)
    for (const scope of ALL) assert.ok(line.includes(scope), `${scope} named in: ${line}`)
    const empty = await cli.run(['keys', 'create', '--account', accountId, '--scopes', ' , '])
    assert.equal(empty.code, 2)
    assert.match(oneLineFailure(empty), /at least one scope/)
    const { keys } = await cli.json<{ keys: Key[] }>(['keys', 'list', '--account', accountId])
    assert.deepEqual(keys, [])

    const key = await cli.json<Key>(['keys', 'create', '--account', accountId])
    const missing = await cli.run(['keys', 'restrict', key.id])
    assert.equal(missing.code, 2)
    assert.match(oneLineFailure(missing), /--scopes/)
    const bad = await cli.run(['keys', 'restrict', key.id, '--scopes', 'pets'])
    assert.equal(bad.code, 2)
    assert.match(
      oneLineFailure(bad),
      /"pets".*pets:read, pets:write, orders:read, orders:write, messages:write, webhooks:read, webhooks:write/,
    )
  },
)

test(
  'keys restrict narrows (audited, applies to the next request), ' +
    'refuses to widen with exit 2 and how to get a wider key; a roll keeps the scopes',
  async (t) => {
    const cli = cliOn(t)
    const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Narrowed'])
    const key = await cli.json<Key>([
      'keys',
      'create',
      '--account',
      accountId,
      '--scopes',
      'pets:read,pets:write,orders:read',
    ])
    const app = await appOnFile(t, cli.file)
    const create = () =>
      app.inject({
        method: 'POST',
        url: '/v1/pets',
        headers: { ...bearer(key.key), 'content-type': 'application/json' },
        payload: { name: 'Rex', categoryId: 1 },
      })
    assert.equal((await create()).statusCode, 201)

    const narrowed = await cli.json<Key>(['keys', 'restrict', key.id, '--scopes', 'pets:read'])
    assert.deepEqual(narrowed.scopes, ['pets:read'])
    assert.equal(errorOf(await create()).code, 'insufficient_scope')
    assert.equal((await app.inject({ url: '/v1/pets', headers: bearer(key.key) })).statusCode, 200)

    const widen = await cli.run(['keys', 'restrict', key.id, '--scopes', 'pets:read,pets:write'])
    assert.equal(widen.code, 2)
    assert.match(oneLineFailure(widen), /does not have pets:write.*create a new key/)
    const { keys } = await cli.json<{ keys: Key[] }>(['keys', 'list', '--account', accountId])
    assert.deepEqual(keys[0]!.scopes, ['pets:read'], 'the refused widening changed nothing')

    const { events } = await cli.json<{ events: AuditEvent[] }>(['audit', 'list', '--account', accountId])
    assert.deepEqual(
      events.filter((e) => e.action === 'key.scopes_restricted').map((e) => e.changes),
      [
        {
          before: { scopes: ['pets:read', 'pets:write', 'orders:read'] },
          after: { scopes: ['pets:read'] },
          name: null,
          prefix: narrowed.prefix,
        },
      ],
    )

    const rolled = await cli.json<{ created: Key }>(['keys', 'roll', key.id, '--grace', '0'])
    assert.deepEqual(rolled.created.scopes, ['pets:read'])
    assert.equal((await app.inject({ url: '/v1/pets', headers: bearer(rolled.created.key) })).statusCode, 200)
    const byRolled = await app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { ...bearer(rolled.created.key), 'content-type': 'application/json' },
      payload: { name: 'Rex', categoryId: 1 },
    })
    assert.equal(errorOf(byRolled).code, 'insufficient_scope')
  },
)
