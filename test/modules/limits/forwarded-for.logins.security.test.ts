// The portal's and the console's log-in throttles count failures per client address (request.ip): behind a
// trusted proxy (TRUST_PROXY), a client that writes a new forged address into X-Forwarded-For on every attempt is
// still one address, the right-most untrusted one, and is refused after the allowed failures as without the header.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LOGIN_FAILURES_ALLOWED } from '../../../src/modules/sign-in/login-throttle.js'
import { consoleHarness, setUpOperator } from '../../helpers/console.js'
import { client, ORIGIN, portalHarness, signedUpUser } from '../../helpers/portal.js'

const env = { TRUST_PROXY: '127.0.0.1' }
/** What a client sends through the proxy on 127.0.0.1 (inject's address): a new forged address each time. */
const forged = (i: number) => ({ origin: ORIGIN, 'x-forwarded-for': `203.0.113.${i}, 198.51.100.7` })

test(
  'portal log-in: rotating forged X-Forwarded-For addresses are one client: ' + '429 after the allowed failures',
  async (t) => {
    const h = await portalHarness(t, { env })
    await signedUpUser(h, 'target@example.com')
    const c = client(h.app)
    await c.get('/portal/login')
    for (let i = 1; i <= LOGIN_FAILURES_ALLOWED; i++) {
      const failed = await c.post(
        '/portal/login',
        { email: 'target@example.com', password: `wrong password number ${i}` },
        forged(i),
      )
      assert.equal(failed.statusCode, 400, `failure ${i}`)
    }
    const refused = await c.post(
      '/portal/login',
      { email: 'target@example.com', password: 'wrong password again' },
      forged(99),
    )
    assert.equal(refused.statusCode, 429)
    // The client behind it is the one refused, not the proxy: another client through the same proxy is not.
    const other = client(h.app)
    await other.get('/portal/login')
    const elsewhere = await other.post(
      '/portal/login',
      { email: 'target@example.com', password: 'wrong password again' },
      { origin: ORIGIN, 'x-forwarded-for': '198.51.100.8' },
    )
    assert.equal(elsewhere.statusCode, 400)
  },
)

test(
  'console log-in: rotating forged X-Forwarded-For addresses are one client: ' + '429 after the allowed failures',
  async (t) => {
    const h = await consoleHarness(t, { env })
    const operator = await setUpOperator(h, { role: 'support' })
    const c = client(h.app)
    await c.get('/console/login')
    for (let i = 1; i <= LOGIN_FAILURES_ALLOWED; i++) {
      const failed = await c.post(
        '/console/login',
        { email: operator.email, password: `wrong password number ${i}`, code: '000000' },
        forged(i),
      )
      assert.notEqual(failed.statusCode, 429, `failure ${i}`)
      assert.notEqual(failed.statusCode, 303, `failure ${i}`)
    }
    const refused = await c.post(
      '/console/login',
      { email: operator.email, password: operator.password, code: operator.codeAt(h.clock.now() + 30_000) },
      forged(99),
    )
    assert.equal(refused.statusCode, 429)
    const other = client(h.app)
    await other.get('/console/login')
    const elsewhere = await other.post(
      '/console/login',
      { email: operator.email, password: operator.password, code: operator.codeAt(h.clock.now() + 30_000) },
      { origin: ORIGIN, 'x-forwarded-for': '198.51.100.8' },
    )
    assert.equal(elsewhere.statusCode, 303, 'another client behind the same proxy logs in')
  },
)
