// `petstore keys create` follows the portal's rules: plain-text names, and at most PORTAL_MAX_KEYS (25) active
// keys per account unless --force; `keys list` shows a rolled key as ROLLED with its real end. Real processes on
// a database file.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { servicesOnFile } from '../helpers/app-on-file.js'
import { cliOn, oneLineFailure } from '../helpers/cli.js'
import { testActor } from '../helpers/actors.js'

interface Key {
  id: string
  key: string
  graceEndsAt: string | null
}

test(
  'keys create refuses a name with a control, ' + 'bidi-override or zero-width character (exit 2, one line)',
  async (t) => {
    const cli = cliOn(t)
    const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Names'])
    for (const [name, code] of [
      ['report\u202Efdp.exe', 'U+202E'],
      ['pay\u200Bments', 'U+200B'],
      ['bell\u0007', 'U+0007'],
    ] as const) {
      const refused = await cli.run(['keys', 'create', '--account', accountId, '--name', name])
      assert.equal(refused.code, 2, refused.stderr)
      const line = oneLineFailure(refused)
      assert.match(line, /a key name cannot hold control characters, invisible formatting characters/)
      assert.ok(line.includes(code), line)
    }
    assert.deepEqual(await cli.json(['keys', 'list', '--account', accountId]), { keys: [] })
  },
)

test(
  'the 26th active key is refused with the count and how to revoke one; ' +
    '--force creates it; PORTAL_MAX_KEYS sets the cap',
  async (t) => {
    const cli = cliOn(t)
    const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Many'])
    const services = await servicesOnFile(t, cli.file)
    const made: string[] = []
    for (let i = 0; i < 25; i++)
      made.push(
        (await services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test', name: `key ${i}` }))
          .id,
      )

    const refused = await cli.run(['keys', 'create', '--account', accountId, '--name', 'one more'])
    // A right command line the account's keys refuse: a failure at run time.
    assert.equal(refused.code, 1)
    const line = oneLineFailure(refused)
    assert.match(line, new RegExp(`account ${accountId} has 25 active keys, the most PORTAL_MAX_KEYS \\(25\\) allows`))
    assert.match(line, /revoke one with `petstore keys revoke KEY_ID`/)
    assert.match(line, /--force/)
    assert.equal((await services.accounts.listApiKeys(accountId)).length, 25)

    const forced = await cli.json<Key>(['keys', 'create', '--account', accountId, '--name', 'one more', '--force'])
    assert.equal((await services.accounts.listApiKeys(accountId)).length, 26)
    // A roll replaces a key: never refused by the cap.
    await cli.json(['keys', 'roll', forced.id, '--grace', '0'])

    // Revoking makes room: 26 active, two revoked, one fits.
    for (const id of made.slice(0, 2)) assert.equal((await cli.run(['keys', 'revoke', id])).code, 0)
    await cli.json(['keys', 'create', '--account', accountId])
    assert.equal((await cli.run(['keys', 'create', '--account', accountId])).code, 1)
    assert.equal((await cli.run(['keys', 'create', '--account', accountId], { PORTAL_MAX_KEYS: '30' })).code, 0)
    assert.match(
      oneLineFailure(await cli.run(['keys', 'create', '--account', accountId], { PORTAL_MAX_KEYS: '3' })),
      /has 26 active keys, the most PORTAL_MAX_KEYS \(3\) allows/,
    )
  },
)

test('keys list shows a rolled key as ROLLED with the end of its grace, never "expires never"', async (t) => {
  const cli = cliOn(t)
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Roller'])
  const old = await cli.json<Key>(['keys', 'create', '--account', accountId, '--name', 'backend'])
  const rolled = await cli.json<{ previous: Key; created: Key }>(['keys', 'roll', old.id, '--grace', '3600'])
  const lines = (await cli.run(['keys', 'list', '--account', accountId])).stdout.trim().split('\n')
  const oldLine = lines.find((l) => l.startsWith(old.id))!
  assert.match(oldLine, /"backend" .* ROLLED /)
  assert.ok(oldLine.includes(`expires ${rolled.previous.graceEndsAt}`), oldLine)
  assert.ok(!oldLine.includes('expires never'), oldLine)
  const newLine = lines.find((l) => l.startsWith(rolled.created.id))!
  assert.match(newLine, /"backend" .* ACTIVE .*expires never$/)
})
