// The operator console through HTTP (inject): a harness with the portal and the console on, and operators created,
// set up (password, authenticator) and logged in through the real log-in form with a TOTP code computed from the
// secret, as an authenticator app would.
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { OperatorRole } from '../../src/modules/operators/operator.js'
import { totpCode, totpStep } from '../../src/modules/sign-in/totp.js'
import { hashPassword } from '../../src/kernel/passwords.js'
import type { Harness } from './harness.js'
import { client, GOOD_PASSWORD, ORIGIN, portalHarness, type Client } from './portal.js'
import type { Services } from '../../src/main/services.js'

export { ORIGIN } from './portal.js'
export const OPERATOR_PASSWORD = `operator ${GOOD_PASSWORD}`
const TEST_ACTOR = { kind: 'cli' as const, user: 'test' }

export type ConsoleHarness = Harness & { outbox: string }

/** Portal and console on (PETSTORE_PUBLIC_URL = ORIGIN), mail to an outbox folder. */
export async function consoleHarness(
  t: TestContext,
  options: Parameters<typeof portalHarness>[1] = {},
): Promise<ConsoleHarness> {
  const h = await portalHarness(t, options)
  assert.ok(h.services.operators, 'the console is off in this harness')
  return h
}

export interface SetUpOperator {
  id: string
  email: string
  role: OperatorRole
  password: string
  /** Base32 TOTP secret: `codeAt(h.clock.now())` is what the operator's authenticator app shows. */
  secret: string
  recoveryCodes: string[]
  codeAt: (at: number) => string
}

let counter = 0

/**
 * An operator created and set up without the setup page (the repository's own steps, as the page takes them): the
 * setup's confirming code is the current step's, so log in with the next step's (`codeAt(now + 30_000)`).
 */
export async function setUpOperator(
  { services }: { services: Services },
  input: { role: OperatorRole; email?: string; password?: string },
): Promise<SetUpOperator> {
  const operators = services.operators!
  const email = input.email ?? `operator${++counter}-${Date.now()}@ops.example`
  const password = input.password ?? OPERATOR_PASSWORD
  const { operator, setupToken } = await operators.create({ email, role: input.role, actor: TEST_ACTOR })
  // The browser's setup cookie: any value, as long as the offer and the completion name the same one.
  const browser = 'test-browser'
  const offer = await operators.offerSecret(setupToken, {
    passwordHash: await hashPassword(password, services.config.passwordHashCost),
    browser,
  })
  assert.ok(offer)
  const done = await operators.completeSetup(setupToken, {
    browser,
    secret: offer.secret,
    step: totpStep(services.clock.now()),
    address: '127.0.0.1',
  })
  assert.ok(done)
  const secret = offer.secret
  return {
    id: operator.id,
    email: operator.email,
    role: input.role,
    password,
    secret,
    recoveryCodes: done.recoveryCodes,
    codeAt: (at) => totpCode(secret, at),
  }
}

/** The TOTP secrets a page shows, as text or inside an otpauth:// link (none, on a page that must not show one). */
export const secretsIn = (body: string): string[] => [
  ...new Set(
    [...body.matchAll(/<code class="secret">([A-Z2-7]+)<\/code>|[?&](?:amp;)?secret=([A-Z2-7]+)/g)].map(
      (m) => (m[1] ?? m[2])!,
    ),
  ),
]

/**
 * Setup through the pages, as a browser does: the link (a password form, no secret), the new password (a secret
 * made for this browser), then a code computed from that secret at `at`. The secret and the recovery codes.
 */
export async function setUpThroughPages(
  c: Client,
  token: string,
  password: string,
  at: number,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const link = `/console/setup/${token}`
  const form = await c.get(link)
  assert.equal(form.statusCode, 200, form.body)
  assert.deepEqual(secretsIn(form.body), [], 'the link alone shows no secret')
  const offered = await c.post(link, { password })
  assert.equal(offered.statusCode, 200, offered.body)
  const [secret] = secretsIn(offered.body)
  assert.ok(secret, 'the secret made for this browser')
  const done = await c.post(`${link}/confirm`, { code: totpCode(secret, at) })
  assert.equal(done.statusCode, 200, done.body)
  const recoveryCodes = [...done.body.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]!)
  assert.equal(recoveryCodes.length, 10)
  return { secret, recoveryCodes }
}

/** Logs an operator in through POST /console/login with `code`; the response. */
export async function logIn(c: Client, operator: { email: string; password: string }, code: string) {
  await c.get('/console/login')
  return c.post('/console/login', { email: operator.email, password: operator.password, code })
}

/**
 * A client (cookie jar + CSRF: get(path), post(path, form)) logged in as a new operator of `role`, with a TOTP
 * code of the step after the setup's (accepted as clock drift, and later than the step already used).
 */
export async function signedInOperator(
  h: { app: FastifyInstance; services: Services },
  input: { role: OperatorRole; email?: string },
): Promise<Client & { operator: SetUpOperator }> {
  const operator = await setUpOperator(h, input)
  const c = client(h.app)
  const response = await logIn(c, operator, operator.codeAt(h.services.clock.now() + 30_000))
  assert.equal(response.statusCode, 303, response.body)
  await c.get('/console')
  return Object.assign(c, { operator })
}

/** One log-in from `address` in a fresh browser (GET the form for its cookie and token, POST it). */
export async function logInFrom(
  app: FastifyInstance,
  address: string,
  fields: { email: string; password: string; code: string },
) {
  const form = await app.inject({ url: '/console/login', remoteAddress: address })
  const pre = form.cookies.find((c) => c.name.endsWith('console_pre'))!
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!
  return app.inject({
    method: 'POST',
    url: '/console/login',
    remoteAddress: address,
    headers: {
      origin: ORIGIN,
      cookie: `${pre.name}=${pre.value}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  })
}
