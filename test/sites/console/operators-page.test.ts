// /console/operators through HTTP: an admin creates an operator (the setup link shown once, from
// PETSTORE_PUBLIC_URL whatever Host the request names, and it works: setup, then log-in), changes a role, disables an
// operator (whose session ends at once); an admin cannot disable itself nor demote itself as the last active admin;
// a support operator has no link and gets 403 on the page and on every POST, changing nothing; every change is on
// record with the admin's email.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import {
  consoleHarness,
  logIn,
  OPERATOR_PASSWORD,
  ORIGIN,
  setUpThroughPages,
  signedInOperator,
  type ConsoleHarness,
} from '../../helpers/console.js'
import { client } from '../../helpers/portal.js'
import { buttonsOf, locationOf } from './account-support.js'

const T0 = Date.parse('2027-05-03T09:00:00Z')
const NAV_LINK = '<a href="/console/operators"'

const rowOf = (body: string, email: string): string => {
  const start = body.indexOf(`>${email}`, body.indexOf('<tbody>'))
  assert.ok(start >= 0, `no row for ${email}`)
  return body.slice(start, body.indexOf('</tr>', start))
}
const stored = (h: ConsoleHarness, email: string) => h.services.operators!.findByEmail(email)

test('an admin creates an operator: the setup link is shown once, from the public URL, and it works', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const admin = await signedInOperator(h, { role: 'admin' })
  const page = await admin.get('/console/operators')
  assert.equal(page.statusCode, 200)
  assert.ok(page.body.includes(`${NAV_LINK} aria-current="page">Operators</a>`), 'the nav link, marked')
  assert.match(rowOf(page.body, admin.operator.email), /<span class="tag">you<\/span>/)
  assert.deepEqual(buttonsOf(rowOf(page.body, admin.operator.email)), ['Change role'], 'no Disable on your own row')

  // A forged Host and X-Forwarded-Host choose nothing: the link is PETSTORE_PUBLIC_URL's.
  const created = await admin.post(
    '/console/operators',
    { email: 'New.Person@Ops.example', role: 'support' },
    { origin: ORIGIN, host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
  )
  assert.equal(created.statusCode, 200, created.body)
  assert.equal(created.headers['cache-control'], 'no-store')
  const link = /<code class="secret setup-link">([^<]+)<\/code>/.exec(created.body)?.[1]
  assert.ok(link, 'the setup link is shown')
  assert.ok(link.startsWith(`${ORIGIN}/console/setup/`), link)
  assert.doesNotMatch(created.body, /evil\.example/)
  assert.match(created.body, /shown only this once\. Hand it over by a safe channel/)
  assert.match(created.body, /valid until 2027-05-04 09:00 UTC/)
  assert.match(
    rowOf(created.body, 'New.Person@ops.example'),
    /<td data-label="Role">support<\/td><td data-label="State"><span class="state-expired">setup pending<\/span>/,
  )
  // Shown once: the list again has no link.
  assert.doesNotMatch((await admin.get('/console/operators')).body, /console\/setup\//)

  // The link works: the setup pages (a password, then a code), then a log-in.
  const newcomer = client(h.app)
  const { secret } = await setUpThroughPages(
    newcomer,
    new URL(link).pathname.split('/').at(-1)!,
    OPERATOR_PASSWORD,
    h.clock.now(),
  )
  const loggedIn = await logIn(
    newcomer,
    { email: 'New.Person@ops.example', password: OPERATOR_PASSWORD },
    totpCode(secret, h.clock.now() + 30_000),
  )
  assert.equal(locationOf(loggedIn), '/console')
  assert.match(
    rowOf((await admin.get('/console/operators')).body, 'New.Person@ops.example'),
    /<span class="state-active">active<\/span>/,
  )

  // The CLI's checks: a bad address, a taken one (whatever its case), no role.
  const bad = await admin.post('/console/operators', { email: 'not an address', role: 'admin' })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /role="alert" id="create-error">An email address cannot contain spaces/)
  assert.match(bad.body, /value="not an address"/)
  const taken = await admin.post('/console/operators', { email: 'new.person@OPS.example', role: 'admin' })
  assert.equal(taken.statusCode, 400)
  assert.match(taken.body, /An operator with the email new\.person@OPS\.example exists already/)
  const noRole = await admin.post('/console/operators', { email: 'other@ops.example', role: 'owner' })
  assert.equal(noRole.statusCode, 400)
  assert.match(noRole.body, /Choose a role: admin or support\./)
  assert.equal(await stored(h, 'other@ops.example'), undefined)
  assert.equal((await h.services.operators!.list()).length, 2)

  // On record with the admin as the actor.
  const [entry, ...others] = await h.services.audit.list({
    action: 'operator.created',
    actor: admin.operator.email,
    limit: 10,
  })
  assert.equal(others.length, 0)
  assert.deepEqual(
    [entry!.actor.kind, entry!.actor.email, entry!.changes],
    ['operator', admin.operator.email, { after: { email: 'New.Person@ops.example', role: 'support' } }],
  )
  assert.ok(
    !JSON.stringify(await h.services.audit.list({ limit: 100 })).includes(new URL(link).pathname.split('/').at(-1)!),
    'the token is in no entry',
  )
})

test(
  "change role and disable: the disabled operator's session ends; " +
    'self-disable and last-admin self-demotion refused',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const admin = await signedInOperator(h, { role: 'admin' })
    const other = await signedInOperator(h, { role: 'support' })
    const id = other.operator.id

    // Change role: support -> admin, who then sees the Operators link.
    assert.equal(
      locationOf(await admin.post(`/console/operators/${id}/role`, { role: 'admin' })),
      '/console/operators?done=role',
    )
    assert.equal((await h.services.operators!.get(id))!.role, 'admin')
    assert.match((await admin.get('/console/operators?done=role')).body, /role="status">The role was changed/)
    assert.ok((await other.get('/console')).body.includes(NAV_LINK), 'the promoted operator sees the link')
    assert.equal(
      locationOf(await admin.post(`/console/operators/${id}/role`, { role: 'admin' })),
      '/console/operators?done=unchanged',
    )
    assert.equal((await admin.post(`/console/operators/${id}/role`, { role: 'owner' })).statusCode, 400)
    assert.equal((await admin.post('/console/operators/op_nobody/role', { role: 'admin' })).statusCode, 404)

    // Two active admins: one may demote itself; then the last one may not.
    assert.equal(
      locationOf(await other.post(`/console/operators/${id}/role`, { role: 'support' })),
      '/console/operators?done=role',
    )
    const last = await admin.post(`/console/operators/${admin.operator.id}/role`, { role: 'support' })
    assert.equal(last.statusCode, 400)
    assert.match(
      last.body,
      /You are the last active admin: make another operator admin before you change your own role\./,
    )
    assert.equal((await h.services.operators!.get(admin.operator.id))!.role, 'admin')

    // Self-disable: no button, the confirmation step and the POST refused.
    const selfStep = await admin.get(`/console/operators/${admin.operator.id}/disable`)
    assert.equal(selfStep.statusCode, 400)
    assert.match(selfStep.body, /You cannot disable yourself/)
    const self = await admin.post(`/console/operators/${admin.operator.id}/disable`, {})
    assert.equal(self.statusCode, 400)
    assert.match(self.body, /You cannot disable yourself/)
    assert.equal((await h.services.operators!.get(admin.operator.id))!.disabledAt, null)

    // Disable another, through its confirmation step: its session ends on its next request.
    const step = await admin.get(`/console/operators/${id}/disable`)
    assert.equal(step.statusCode, 200)
    assert.ok(step.body.includes(`<form method="post" action="/console/operators/${id}/disable"`))
    assert.deepEqual(buttonsOf(step.body).slice(-1), ['Disable'])
    assert.equal((await other.get('/console')).statusCode, 200)
    assert.equal(
      locationOf(await admin.post(`/console/operators/${id}/disable`, {})),
      '/console/operators?done=disabled',
    )
    const ended = await other.get('/console/accounts')
    assert.equal(ended.statusCode, 303)
    assert.match(String(ended.headers.location), /^\/console\/login/)
    const list = (await admin.get('/console/operators?done=disabled')).body
    assert.match(list, /role="status">The operator was disabled/)
    assert.match(rowOf(list, other.operator.email), /state-revoked">disabled<\/span> 2027-05-03/)
    assert.deepEqual(buttonsOf(rowOf(list, other.operator.email)), [], 'no control on a disabled operator')
    assert.equal(
      locationOf(await admin.post(`/console/operators/${id}/disable`, {})),
      '/console/operators?done=unchanged',
    )
    assert.equal(
      (await admin.post(`/console/operators/${id}/role`, { role: 'admin' })).statusCode,
      400,
      'a disabled operator gets no role',
    )

    // On record with the admin's email (the self-demotion with the other's).
    const byAdmin = await h.services.audit.list({ actor: admin.operator.email, limit: 20 })
    const changes = byAdmin
      .filter((e) => e.action === 'operator.role_changed' || e.action === 'operator.disabled')
      .map((e) => [e.action, e.target?.id, e.actor.kind])
    assert.deepEqual(changes, [
      ['operator.disabled', id, 'operator'],
      ['operator.role_changed', id, 'operator'],
    ])
    const [demoted] = await h.services.audit.list({
      actor: other.operator.email,
      action: 'operator.role_changed',
      limit: 5,
    })
    assert.deepEqual(demoted!.changes, {
      email: other.operator.email,
      before: { role: 'admin' },
      after: { role: 'support' },
    })
  },
)

test('support: no Operators link, 403 on the page and on every POST, nothing changed', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const admin = await signedInOperator(h, { role: 'admin' })
  const support = await signedInOperator(h, { role: 'support' })
  const home = await support.get('/console')
  assert.equal(home.statusCode, 200)
  assert.ok(!home.body.includes(NAV_LINK), 'no Operators link for support')
  assert.ok((await admin.get('/console')).body.includes(NAV_LINK), 'the link for admins')

  const auditBefore = (await h.services.audit.list({ limit: 100 })).length
  const refused = {
    list: await support.get('/console/operators'),
    step: await support.get(`/console/operators/${admin.operator.id}/disable`),
    create: await support.post('/console/operators', { email: 'sneaky@ops.example', role: 'admin' }),
    promote: await support.post(`/console/operators/${support.operator.id}/role`, { role: 'admin' }),
    demote: await support.post(`/console/operators/${admin.operator.id}/role`, { role: 'support' }),
    disable: await support.post(`/console/operators/${admin.operator.id}/disable`, {}),
  }
  for (const [what, response] of Object.entries(refused)) {
    assert.equal(response.statusCode, 403, what)
    assert.match(response.body, /Not allowed/, what)
  }
  assert.equal(await stored(h, 'sneaky@ops.example'), undefined)
  assert.deepEqual((await h.services.operators!.list()).map((o) => [o.role, o.disabledAt]).sort(), [
    ['admin', null],
    ['support', null],
  ])
  assert.equal((await h.services.audit.list({ limit: 100 })).length, auditBefore)
  // The token and cookie were good: a support page still works.
  assert.equal((await support.get('/console/audit')).statusCode, 200)

  // Without the form's token, even an admin is refused (the plugin's CSRF check).
  const forged = await admin.post('/console/operators', { email: 'forged@ops.example', role: 'admin', _csrf: 'nope' })
  assert.equal(forged.statusCode, 403)
  assert.equal(await stored(h, 'forged@ops.example'), undefined)
})
