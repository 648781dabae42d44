// `petstore operators create | list | disable | set-role`, run as a real process on a fresh database file: the
// setup link comes from PETSTORE_PUBLIC_URL and opens the setup page of the app on that file; every change is in
// the audit log with the operating-system user; refusals are one line.
import assert from 'node:assert/strict'
import os from 'node:os'
import { test } from 'node:test'
import { appOnFile, servicesOnFile } from '../helpers/app-on-file.js'
import { cliOn, oneLineFailure } from '../helpers/cli.js'
import { client } from '../helpers/portal.js'
import { OPERATOR_PASSWORD, setUpThroughPages } from '../helpers/console.js'

const PUBLIC = 'https://console.example'

interface Created {
  id: string
  email: string
  role: string
  setUp: boolean
  disabledAt: string | null
  setupLink: string
  setupLinkExpiresAt: string
}

test(
  'operators create prints a single-use setup link ' + 'from PETSTORE_PUBLIC_URL that sets the operator up',
  async (t) => {
    const cli = cliOn(t, { PETSTORE_PUBLIC_URL: PUBLIC })
    const created = await cli.json<Created>(['operators', 'create', '--email', 'Admin@Ops.example', '--role', 'admin'])
    assert.match(created.id, /^op_/)
    assert.deepEqual(
      [created.email, created.role, created.setUp, created.disabledAt],
      ['Admin@ops.example', 'admin', false, null],
    )
    assert.match(created.setupLink, /^https:\/\/console\.example\/console\/setup\/[\w-]{43}$/)
    const hours = (Date.parse(created.setupLinkExpiresAt) - Date.now()) / 3_600_000
    assert.ok(hours > 23.9 && hours <= 24, `${hours} hours`)

    const human = await cli.run(['operators', 'create', '--email', 'support@ops.example', '--role', 'support'])
    assert.equal(human.code, 0, human.stderr)
    assert.match(human.stdout, /^created operator op_\w+ {2}support@ops\.example {2}support {2}setup pending/)
    assert.match(
      human.stdout,
      /\nsetup link \(single use, until [-:.\dTZ]+\): https:\/\/console\.example\/console\/setup\/[\w-]{43}\n$/,
    )

    // The link opens the setup page of the service on that database.
    const app = await appOnFile(t, cli.file, { PETSTORE_PUBLIC_URL: PUBLIC })
    const c = client(app, PUBLIC)
    const path = new URL(created.setupLink).pathname
    await setUpThroughPages(c, path.split('/').at(-1)!, OPERATOR_PASSWORD, Date.now())
    assert.equal((await c.get(path)).statusCode, 410, 'single use')
    const [listed] = (await cli.json<{ operators: Created[] }>(['operators', 'list'])).operators
    assert.equal(listed!.setUp, true)
  },
)

test('operators list, set-role and disable; each change on record with the operating-system user', async (t) => {
  const cli = cliOn(t)
  assert.deepEqual(await cli.json(['operators', 'list']), { operators: [] })
  assert.equal((await cli.run(['operators', 'list'])).stdout, 'no operators\n')
  const a = await cli.json<Created>(['operators', 'create', '--email', 'a@ops.example', '--role', 'support'])
  const b = await cli.json<Created>(['operators', 'create', '--email', 'b@ops.example', '--role', 'admin'])
  assert.deepEqual(
    (await cli.json<{ operators: Created[] }>(['operators', 'list'])).operators.map((o) => [o.email, o.role]),
    [
      ['a@ops.example', 'support'],
      ['b@ops.example', 'admin'],
    ],
  )
  assert.ok(
    !JSON.stringify(await cli.json(['operators', 'list'])).includes('setupLink'),
    'a listing never shows a setup link',
  )

  assert.equal((await cli.json<Created>(['operators', 'set-role', a.id, 'admin'])).role, 'admin')
  const disabled = await cli.json<Created>(['operators', 'disable', b.id])
  assert.ok(disabled.disabledAt)
  const list = await cli.run(['operators', 'list'])
  assert.match(list.stdout, new RegExp(`${b.id} {2}b@ops\\.example {2}admin {2}disabled `))

  const services = await servicesOnFile(t, cli.file)
  const entries = await services.audit.list({ limit: 10 })
  assert.deepEqual(
    entries.map((e) => e.action),
    ['operator.disabled', 'operator.role_changed', 'operator.created', 'operator.created'],
  )
  const user = os.userInfo().username
  for (const e of entries) assert.deepEqual(e.actor, { kind: 'cli', id: user, email: null, address: null })
  assert.deepEqual(entries[1]!.changes, {
    email: 'a@ops.example',
    before: { role: 'support' },
    after: { role: 'admin' },
  })
})

test(
  'operators refusals are one line: ' + 'a bad role, a taken or bad address, an unknown id, a disabled operator',
  async (t) => {
    const cli = cliOn(t)
    const a = await cli.json<Created>(['operators', 'create', '--email', 'a@ops.example', '--role', 'support'])
    // Exit 2 for a bad value on the command line, 1 for what the data refuses.
    const refused = async (args: string[], reason: RegExp, code: number) => {
      const r = await cli.run(args)
      assert.match(oneLineFailure(r), reason)
      assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`)
    }
    await refused(['operators', 'create', '--email', 'x@ops.example', '--role', 'root'], /--role.*admin, support/, 2)
    await refused(['operators', 'create', '--email', 'x@ops.example'], /--role/, 2)
    await refused(['operators', 'create', '--email', 'A@OPS.example', '--role', 'admin'], /exists/, 1)
    await refused(['operators', 'create', '--email', 'not an address', '--role', 'admin'], /^petstore: .*address/, 2)
    await refused(['operators', 'set-role', a.id, 'owner'], /'role'.* must be one of admin, support/, 2)
    await refused(['operators', 'disable', 'op_nobody'], /^petstore: no operator op_nobody$/, 1)
    await cli.json(['operators', 'disable', a.id])
    await refused(['operators', 'set-role', a.id, 'admin'], /disabled/, 1)
  },
)
