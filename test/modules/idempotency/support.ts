// What the Idempotency-Key tests share: POST /v1/pets with a key, and the rows of the idempotency_keys table.
import assert from 'node:assert/strict'
import { bearer, errorOf, type Harness } from '../../helpers/harness.js'
import { IDEMPOTENCY_TTL_MS } from '../../../src/modules/idempotency/idempotency.repository.js'

export const REX = '{"name":"Rex","categoryId":7,"status":"available"}'

/** POST /v1/pets with a raw JSON body and, unless undefined, an Idempotency-Key header sent as given. */
export function postPet(h: Harness, key: string, idempotencyKey: string | string[] | undefined, payload: string = REX) {
  const headers: Record<string, string | string[]> = { ...bearer(key), 'content-type': 'application/json' }
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
  return h.app.inject({ method: 'POST', url: '/v1/pets', headers, payload })
}

/** The idempotency_keys rows, oldest first. */
export function keyRows(h: Harness) {
  return h.handle.db.selectFrom('idempotency_keys').selectAll().orderBy('created_at').execute()
}

/** An account whose quota no test here comes near. */
export const roomy = { plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 }

/** Asserts the Error shape, the status and the code of an inject response; returns the body. */
export function expectCode(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  code: string,
) {
  const body = errorOf(res)
  assert.equal(res.statusCode, status, res.body)
  assert.equal(body.code, code, res.body)
  return body
}

/** Leaves a record of `key` in progress, as a request still running would: same fingerprint as `body`. */
export async function inProgress(h: Harness, accountId: string, key: string, body: string, apiKey: string) {
  await postPet(h, apiKey, '"probe"', body) // learn the body's fingerprint from a real record
  const probe = (await keyRows(h)).find((r) => r.idempotency_key === 'probe')!
  const now = new Date(h.clock.now())
  await h.handle.db
    .insertInto('idempotency_keys')
    .values({
      account_id: accountId,
      idempotency_key: key,
      fingerprint: probe.fingerprint,
      state: 'in_progress',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
      response_status: null,
      response_body: null,
      response_location: null,
    })
    .execute()
}
