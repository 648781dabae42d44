// The portal's permissions (issue 26) through HTTP: the Create key form's Permissions group (every box ticked at
// first), a key made with some of them, the "Create read-only key" button (a plain submit: no JavaScript needed),
// the keys table's Permissions cell ("All" or the scopes), refusals (no box, a forged scope), and the page that
// narrows a key: through the one narrowing, so a forged wider set and a post without the CSRF token change nothing.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { bearer, errorOf } from '../../helpers/harness.js'
import { ORIGIN, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'

const ALL = [
  'pets:read',
  'pets:write',
  'orders:read',
  'orders:write',
  'messages:write',
  'webhooks:read',
  'webhooks:write',
]

/**
 * Posts a form with repeated fields (the checkboxes), as a browser does, with the client's session and token; the
 * cookies it sets (the new key's sealed secret) go to the client's jar.
 */
async function postForm(app: FastifyInstance, c: Client, url: string, pairs: [string, string][], csrf = c.csrf) {
  const cookie = [...c.jar].map(([k, v]) => `${k}=${v}`).join('; ')
  const payload = new URLSearchParams([['_csrf', csrf], ...pairs]).toString()
  const response = await app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: ORIGIN },
    payload,
  })
  for (const set of response.cookies as { name: string; value: string }[])
    if (set.value !== '') c.jar.set(set.name, set.value)
  return response
}

/** What the form sends for these ticked boxes: the group's own empty field, then each box. */
const boxes = (scopes: string[]): [string, string][] => [
  ['scopes', ''],
  ...scopes.map((s): [string, string] => ['scopes', s]),
]

/** The scopes the row of the key with this prefix shows (without the cell's Narrow link). */
const permissionsCell = (body: string, prefix: string) =>
  /data-label="Permissions">(.*?)<\/td>/
    .exec(body.split('<tr>').find((row) => row.includes(`${prefix}…`))!)![1]!
    .replace(/<br><a [^>]*>Narrow<\/a>/, '')
    .replace(/<[^>]+>/g, '')

async function signedIn(t: Parameters<typeof portalHarness>[0], email: string) {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, email)
  const accountId = (await h.services.portal!.repo.findUserByEmail(email))!.account_id
  const keys = () => h.services.accounts.listApiKeys(accountId)
  return { h, c, accountId, keys }
}

test(
  'Create key: a Permissions group with every scope ticked; ' +
    'a key made with some, or read-only by its own button; the table shows them or All',
  async (t) => {
    const { h, c, keys } = await signedIn(t, 'perm@example.com')
    const form = await c.get('/portal/keys/new')
    assert.match(form.body, /<fieldset class="permissions"><legend>Permissions<\/legend>/)
    for (const scope of ALL)
      assert.match(form.body, new RegExp(`<input type="checkbox" name="scopes" value="${scope}" checked`), scope)
    assert.match(
      form.body,
      /<button type="submit" class="secondary" name="preset" value="read-only">Create read-only key<\/button>/,
    )

    assert.equal(
      (
        await postForm(h.app, c, '/portal/keys', [
          ['name', 'worker'],
          ['expires', ''],
          ...boxes(['messages:write', 'pets:read']),
        ])
      ).statusCode,
      303,
    )
    await c.get('/portal/keys/new')
    // The shortcut wins over the boxes (all still ticked, as a browser sends them).
    assert.equal(
      (
        await postForm(h.app, c, '/portal/keys', [
          ['name', 'dashboard'],
          ['expires', ''],
          ...boxes(ALL),
          ['preset', 'read-only'],
        ])
      ).statusCode,
      303,
    )
    await c.get('/portal/keys/new')
    assert.equal(
      (await postForm(h.app, c, '/portal/keys', [['name', 'everything'], ['expires', ''], ...boxes(ALL)])).statusCode,
      303,
    )
    const byName = new Map((await keys()).map((k) => [k.name, k]))
    const [worker, dashboard, everything] = ['worker', 'dashboard', 'everything'].map((name) => byName.get(name))
    assert.deepEqual(
      [worker!.scopes, dashboard!.scopes, everything!.scopes],
      [['pets:read', 'messages:write'], ['pets:read', 'orders:read'], ALL],
    )

    const table = (await c.get('/portal/keys')).body
    assert.match(table, /<th scope="col">Permissions<\/th>/)
    assert.equal(permissionsCell(table, worker!.prefix), 'pets:read, messages:write')
    assert.equal(permissionsCell(table, dashboard!.prefix), 'pets:read, orders:read')
    assert.equal(permissionsCell(table, everything!.prefix), 'All')
  },
)

test(
  'Create key refuses no permission at all and a scope that ' +
    'does not exist (400, the form again), and makes nothing',
  async (t) => {
    const { h, c, keys } = await signedIn(t, 'none@example.com')
    await c.get('/portal/keys/new')
    const none = await postForm(h.app, c, '/portal/keys', [['name', 'nothing'], ['expires', ''], ...boxes([])])
    assert.equal(none.statusCode, 400)
    assert.match(none.body, /Choose at least one permission/)
    // Re-rendered as sent: no box ticked.
    assert.doesNotMatch(none.body, /value="pets:read" checked/)
    const forged = await postForm(h.app, c, '/portal/keys', [
      ['name', 'forged'],
      ['expires', ''],
      ...boxes(['pets:read', 'admin:all']),
    ])
    assert.equal(forged.statusCode, 400)
    assert.match(
      forged.body,
      new RegExp(
        'unknown scope &quot;admin:all&quot;; ' +
          'the scopes are pets:read, pets:write, orders:read, orders:write, messages:write, webhooks:read, ' +
          'webhooks:write',
      ),
    )
    assert.deepEqual(await keys(), [])
  },
)

test(
  'Permissions narrows a key: the next API request is judged by the new set, ' +
    "the change is on the activity page; widening, no token or another account's key change nothing",
  async (t) => {
    const { h, c, keys } = await signedIn(t, 'narrow@example.com')
    await c.get('/portal/keys/new')
    const made = await postForm(h.app, c, '/portal/keys', [
      ['name', 'ci'],
      ['expires', ''],
      ...boxes(['pets:read', 'pets:write']),
    ])
    const secret = /ps_test_[\w-]{43}/.exec((await c.get(made.headers.location as string)).body)![0]
    const [key] = await keys()
    assert.match(
      (await c.get('/portal/keys')).body,
      new RegExp(`href="/portal/keys/${key!.id}/restrict"`),
      'the table offers to narrow it',
    )

    const page = await c.get(`/portal/keys/${key!.id}/restrict`)
    assert.equal(page.statusCode, 200)
    assert.match(page.body, /value="pets:read" checked/)
    assert.match(page.body, /value="pets:write" checked/)
    assert.doesNotMatch(page.body, /value="orders:read"/, 'only what the key has is offered')

    const noToken = await postForm(h.app, c, `/portal/keys/${key!.id}/restrict`, boxes(['pets:read']), 'forged')
    assert.equal(noToken.statusCode, 403)
    const wider = await postForm(h.app, c, `/portal/keys/${key!.id}/restrict`, boxes(['pets:read', 'orders:read']))
    assert.equal(wider.statusCode, 400)
    assert.match(wider.body, /does not have orders:read.*create a new key/)
    assert.deepEqual((await keys())[0]!.scopes, ['pets:read', 'pets:write'])
    const write = () =>
      h.app.inject({
        method: 'POST',
        url: '/v1/pets',
        headers: bearer(secret),
        payload: { name: 'Rex', categoryId: 1 },
      })
    assert.equal((await write()).statusCode, 201)

    const narrowed = await postForm(h.app, c, `/portal/keys/${key!.id}/restrict`, boxes(['pets:read']))
    assert.equal(narrowed.statusCode, 303)
    assert.equal(narrowed.headers.location, '/portal/keys')
    assert.equal(errorOf(await write()).code, 'insufficient_scope')
    const table = (await c.get('/portal/keys')).body
    assert.equal(permissionsCell(table, key!.prefix), 'pets:read')
    assert.doesNotMatch(
      table,
      new RegExp(`href="/portal/keys/${key!.id}/restrict"`),
      'one scope is as narrow as a key gets',
    )
    const activity = (await c.get('/portal/activity')).body
    assert.match(activity, /Key permissions narrowed/)
    assert.match(activity, /Scopes from pets:read, pets:write to pets:read/)

    const other = await signedUpUser(h, 'other@example.com')
    assert.equal((await other.get(`/portal/keys/${key!.id}/restrict`)).statusCode, 404)
    assert.equal(
      (await postForm(h.app, other, `/portal/keys/${key!.id}/restrict`, boxes(['pets:read']))).statusCode,
      404,
    )
  },
)
