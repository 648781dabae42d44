// The operator console through HTTP (inject): a harness with the portal and the console on, and operators created,
// set up (password, authenticator) and logged in through the real log-in form with a TOTP code computed from the
// secret, as an authenticator app would.
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { OperatorRole } from '../../src/operators/operator.js'
import { totpCode, totpStep } from '../../src/operators/totp.js'
import { hashPassword } from '../../src/web/passwords.js'
import type { Harness } from './harness.js'
import { client, GOOD_PASSWORD, portalHarness, type Client } from './portal.js'

export { ORIGIN } from './portal.js'
export const OPERATOR_PASSWORD = `operator ${GOOD_PASSWORD}`
const TEST_ACTOR = { kind: 'cli' as const, user: 'test' }

export type ConsoleHarness = Harness & { outbox: string }

/** Portal and console on (PETSTORE_PUBLIC_URL = ORIGIN), mail to an outbox folder. */
export async function consoleHarness(t: TestContext, options: Parameters<typeof portalHarness>[1] = {}): Promise<ConsoleHarness> {
  const h = await portalHarness(t, options)
  assert.ok(h.app.operators, 'the console is off in this harness')
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
export async function setUpOperator(app: FastifyInstance, input: { role: OperatorRole; email?: string; password?: string }): Promise<SetUpOperator> {
  const operators = app.operators!
  const email = input.email ?? `operator${++counter}-${Date.now()}@ops.example`
  const password = input.password ?? OPERATOR_PASSWORD
  const { operator, setupToken } = await operators.create({ email, role: input.role, actor: TEST_ACTOR })
  const setup = await operators.beginSetup(setupToken)
  assert.ok(setup)
  const done = await operators.completeSetup(setupToken, { passwordHash: await hashPassword(password, app.config.passwordHashCost), secret: setup.secret, step: totpStep(app.clock.now()) })
  assert.ok(done)
  const secret = setup.secret
  return { id: operator.id, email: operator.email, role: input.role, password, secret, recoveryCodes: done.recoveryCodes, codeAt: (at) => totpCode(secret, at) }
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
export async function signedInOperator(h: { app: FastifyInstance }, input: { role: OperatorRole; email?: string }): Promise<Client & { operator: SetUpOperator }> {
  const operator = await setUpOperator(h.app, input)
  const c = client(h.app)
  const response = await logIn(c, operator, operator.codeAt(h.app.clock.now() + 30_000))
  assert.equal(response.statusCode, 303, response.body)
  await c.get('/console')
  return Object.assign(c, { operator })
}
