// What the account page and account action tests share: an integrator signed up through the portal (unverified),
// a key banned the way the limiter bans one, the account's audit entries and a page's buttons.
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import type { AuditAction } from '../../../src/modules/audit/audit-event.js'
import { bearer, type Harness } from '../../helpers/harness.js'
import { client, GOOD_PASSWORD, mails } from '../../helpers/portal.js'
import type { Services } from '../../../src/main/services.js'

/** GET /v1/pets with the key. */
export const api = (h: { app: FastifyInstance }, key: string) => h.app.inject({ url: '/v1/pets', headers: bearer(key) })

/** Bans the key as the limiter does: its minute's quota used up, then more than 30 refused requests in that minute. */
export async function banKey(h: Harness, key: string, perMinute = 60): Promise<void> {
  for (let i = 0; i < perMinute; i++) assert.equal((await api(h, key)).statusCode, 200)
  for (let i = 0; i < 31; i++) await api(h, key)
  const banned = await api(h, key)
  assert.equal(banned.statusCode, 429)
  assert.equal(JSON.parse(banned.body).code, 'temporarily_banned')
}

/** An integrator who signed up in the portal and did not verify: its account id and the verification mails so far. */
export async function unverifiedSignUp(
  h: Harness & { outbox: string },
  email: string,
): Promise<{ accountId: string; mails: () => Promise<string[]> }> {
  const c = client(h.app)
  await c.get('/portal/signup')
  assert.equal((await c.post('/portal/signup', { email, password: GOOD_PASSWORD })).statusCode, 200)
  const verifications = async () =>
    (await mails(h, h.outbox)).filter((m) => m.includes(`To: ${email}`) && m.includes('/portal/verify/'))
  assert.equal((await verifications()).length, 1)
  const row = await h.handle.db
    .selectFrom('portal_users')
    .select('account_id')
    .where('email', '=', email)
    .executeTakeFirstOrThrow()
  return { accountId: row.account_id, mails: verifications }
}

/** The account's audit entries of one action, newest first. */
export const entriesOf = (h: { services: Services }, accountId: string, action: AuditAction) =>
  h.services.audit.list({ accountId, action, limit: 50 })

/** The labels of a page's buttons, in order. */
export const buttonsOf = (body: string): string[] =>
  [...body.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]!)

/** The path and query of a 303's Location. */
export const locationOf = (response: {
  statusCode: number
  headers: Record<string, unknown>
  body: string
}): string => {
  assert.equal(response.statusCode, 303, response.body)
  return String(response.headers.location)
}
