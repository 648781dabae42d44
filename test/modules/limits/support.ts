// What the rate-limit tests share: reading the five limit headers, spending quota, the admin usage view.
import assert from 'node:assert/strict'
import { loadOrCreateSecret } from '../../../src/db/settings.js'
import { ADMIN_TOKEN_SETTING } from '../../../src/modules/limits/admin-channel.js'
import { bearer, errorOf, type Harness } from '../../helpers/harness.js'

type Headers = Record<string, string | string[] | number | undefined>
export interface Res {
  statusCode: number
  headers: Headers
  body: string
}

/** Unix epoch seconds of an ISO instant. */
export const epoch = (iso: string) => Date.parse(iso) / 1000

interface LimitHeaders {
  limit: number
  remaining: number
  reset: number
  policy: string
  rateLimit: string
}

/** The five limit headers, asserted present and well-formed (integers; the IETF structured fields). */
export function limitHeaders(res: Res): LimitHeaders {
  const get = (name: string) => {
    const value = res.headers[name]
    assert.equal(typeof value, 'string', `${name} missing on a ${res.statusCode}: ${JSON.stringify(res.headers)}`)
    return value as string
  }
  const int = (name: string) => {
    const value = get(name)
    assert.match(value, /^\d+$/, `${name}: ${value}`)
    return Number(value)
  }
  const headers = {
    limit: int('x-ratelimit-limit'),
    remaining: int('x-ratelimit-remaining'),
    reset: int('x-ratelimit-reset'),
    policy: get('ratelimit-policy'),
    rateLimit: get('ratelimit'),
  }
  assert.match(headers.policy, /^"[a-z]+";q=\d+;w=\d+(, "[a-z]+";q=\d+;w=\d+)*$/, `RateLimit-Policy: ${headers.policy}`)
  assert.match(headers.rateLimit, /^"[a-z]+";r=\d+;t=\d+$/, `RateLimit: ${headers.rateLimit}`)
  return headers
}

export const FREE_POLICY = '"minute";q=60;w=60, "day";q=1000;w=86400'

/** GET /v1/pets with the key. */
export const list = (h: Harness, key: string) => h.app.inject({ url: '/v1/pets', headers: bearer(key) })

/** Sends `n` requests with the key and asserts each is admitted. */
export async function spend(h: Harness, key: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await list(h, key)
    if (res.statusCode !== 200) assert.fail(`request ${i + 1} of ${n}: ${res.statusCode} ${res.body}`)
  }
}

/** Asserts a 429 with the Error body, the code, and a whole-second Retry-After ≥ 1; returns body and seconds. */
export function expect429(res: Res, code: 'rate_limit_exceeded' | 'temporarily_banned') {
  assert.equal(res.statusCode, 429, res.body)
  const body = errorOf(res)
  assert.equal(body.code, code, res.body)
  const retryAfter = String(res.headers['retry-after'])
  assert.match(retryAfter, /^[1-9]\d*$/, `Retry-After: ${retryAfter}`)
  return { body, retryAfter: Number(retryAfter) }
}

export interface Usage {
  accountId: string
  plan: string
  windows: { name: string; limit: number; used: number; remaining: number; resetsAt: string }[]
  bans: { keyId: string; until: string }[]
}

/** The operator's view of an account's counters (the endpoint `petstore accounts usage` asks). */
async function usageOf(h: Harness, accountId: string): Promise<Usage> {
  const token = await loadOrCreateSecret(h.handle.db, ADMIN_TOKEN_SETTING)
  const res = await h.app.inject({ url: `/admin/accounts/${accountId}/usage`, headers: bearer(token) })
  assert.equal(res.statusCode, 200, res.body)
  return JSON.parse(res.body) as Usage
}

/** `[minute used, day used]` of an account. */
export async function usedOf(h: Harness, accountId: string): Promise<[number, number]> {
  const { windows } = await usageOf(h, accountId)
  return [windows.find((w) => w.name === 'minute')!.used, windows.find((w) => w.name === 'day')!.used]
}
