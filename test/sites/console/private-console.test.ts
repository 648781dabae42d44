// A private console on the API listener: CONSOLE_ALLOWED_NETWORKS answers everyone else with the API's own 404 (not
// the console's pages, not even its log-in or its stylesheet), after TRUST_PROXY has found the client's address; and
// the console running with the portal off (PORTAL=off CONSOLE=on), where nothing mails account owners.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { consoleHarness, signedInOperator } from '../../helpers/console.js'

const PROXY = '127.0.0.1'
const OFFICE = '10.1.2.3'
const OUTSIDER = '203.0.113.9'

/** A request as it reaches the listener: from `connection`, with the X-Forwarded-For a proxy would add. */
const from = (app: FastifyInstance, connection: string, url: string, forwardedFor?: string, method = 'GET') =>
  app.inject({
    method: method as 'GET',
    url,
    remoteAddress: connection,
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    ...(method === 'POST'
      ? {
          payload: 'email=a%40b.example&password=x&code=123456',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
          },
        }
      : {}),
  })

test('only allowed networks reach the console; others get the API 404; proxies believed if trusted', async (t) => {
  const h = await consoleHarness(t, {
    env: { CONSOLE_ALLOWED_NETWORKS: '10.0.0.0/8,fd00::/8', TRUST_PROXY: PROXY },
  })
  const unknownRoute = await from(h.app, PROXY, '/no-such-page', OUTSIDER)
  assert.equal(unknownRoute.statusCode, 404)

  const allowed = await from(h.app, PROXY, '/console/login', OFFICE)
  assert.equal(allowed.statusCode, 200)
  assert.match(allowed.body, /<form method="post" action="\/console\/login"/)

  for (const [method, url] of [
    ['GET', '/console/login'],
    ['GET', '/console'],
    ['GET', '/console/no-such-page'],
    ['GET', '/console/assets/console.css'],
    ['GET', '/console/setup/some-token'],
    ['POST', '/console/login'],
  ] as const) {
    const refused = await from(h.app, PROXY, url, OUTSIDER, method)
    assert.equal(refused.statusCode, 404, `${method} ${url}`)
    assert.deepEqual(refused.json(), { code: 'not_found', message: `No route for ${method} ${url}.`, status: 404 })
    assert.equal(refused.headers['content-type'], unknownRoute.headers['content-type'])
    assert.equal(refused.headers['content-security-policy'], undefined, "none of the console's headers")
    assert.equal(refused.headers['set-cookie'], undefined, 'no console cookie')
  }

  // X-Forwarded-For from a connection that is not a trusted proxy is not believed.
  assert.equal((await from(h.app, '198.51.100.7', '/console/login', OFFICE)).statusCode, 404)
  // A proxy's own address is not in the list either: it is the client behind it that counts.
  assert.equal((await from(h.app, PROXY, '/console/login')).statusCode, 404)
  // IPv6, and IPv4 as a dual-stack listener reports it.
  assert.equal((await from(h.app, 'fd00::17', '/console/login')).statusCode, 200)
  assert.equal((await from(h.app, '::ffff:10.9.9.9', '/console/login')).statusCode, 200)
  assert.equal((await from(h.app, '::ffff:11.9.9.9', '/console/login')).statusCode, 404)
  // A range is matched by its bits: 10.0.0.0/8 is not "every address starting with 10".
  assert.equal((await from(h.app, PROXY, '/console/login', '100.1.2.3')).statusCode, 404)

  // The rest of the listener is everyone's, as before.
  assert.equal((await from(h.app, PROXY, '/portal/login', OUTSIDER)).statusCode, 200)
  assert.equal((await from(h.app, PROXY, '/v1/pets', OUTSIDER)).statusCode, 401)
})

test('the console runs with the portal off: operators work, and nothing offers to mail an owner', async (t) => {
  const h = await consoleHarness(t, { env: { PORTAL: 'off', CONSOLE: 'on' } })
  assert.equal(h.services.portal, undefined)
  assert.equal((await h.app.inject('/portal/login')).statusCode, 404)
  const admin = await signedInOperator(h, { role: 'admin' })
  const account = await h.newAccount({ name: 'Made with the CLI' })
  const page = await admin.get(`/console/accounts/${account.accountId}`)
  assert.equal(page.statusCode, 200)
  assert.doesNotMatch(page.body, /Resend verification|password link/)
  assert.doesNotMatch((await admin.get('/console/accounts')).body, /New account/)
  assert.equal((await admin.get('/console/requests')).statusCode, 200)
  const mailing = await admin.get(`/console/accounts/${account.accountId}/verification`)
  assert.equal(mailing.statusCode, 400)
  assert.match(mailing.body, /This console sends no mail to account owners: the portal is off here/)
  assert.equal((await admin.get('/console/accounts/new')).statusCode, 400)
})
