// The authentication checks every pet store operation must pass (issue 2, "API keys and accounts"),
// registered as tests for one operation. Each 401 must be the Error shape with a `WWW-Authenticate:
// Bearer realm=…` challenge; key problems say `error="invalid_token"`, header problems `invalid_request`.
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { bearer, startHarness, type Harness, type TestAccount } from './harness.js'
import { expectError, sender, type HttpResponse } from './http.js'
import { createPet } from './pets.js'
import { testActor } from './actors.js'

export interface Operation {
  name: string
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** The URL to call for this account (may create what the operation needs, e.g. a pet to get). */
  url: (h: Harness, account: TestAccount) => Promise<string>
  body?: unknown
  /** Status of a successful call. */
  ok: number
  /** A success uses up what the URL names (a cancelled order is gone): each success needs a new URL. */
  once?: boolean
  /** Each test needs a database of its own (the body names the pet the URL makes by its id, 1 on a new one). */
  fresh?: boolean
}

export const OPERATIONS: Operation[] = [
  { name: 'listPets', method: 'GET', url: async () => '/v1/pets', ok: 200 },
  { name: 'createPet', method: 'POST', url: async () => '/v1/pets', body: { name: 'Rex', categoryId: 1 }, ok: 201 },
  {
    name: 'getPet',
    method: 'GET',
    url: async (h, account) => `/v1/pets/${(await createPet(h, account.key, { name: 'Rex', categoryId: 1 })).id}`,
    ok: 200,
  },
]

type Challenge = 'none' | 'invalid_request' | 'invalid_token'

export function expectUnauthorized(response: HttpResponse, code: string, challenge: Challenge) {
  const body = expectError(response, 401, code)
  const header = response.headers['www-authenticate'] ?? ''
  assert.match(header, /^Bearer realm="[^"]+"/, `WWW-Authenticate: ${header}`)
  if (challenge === 'none')
    assert.doesNotMatch(header, /error=/, 'no error attribute when no credentials were sent (RFC 6750 §3.1)')
  else assert.match(header, new RegExp(`error="${challenge}"`))
  return body
}

const MALFORMED: [string, (key: string) => string][] = [
  ['the scheme alone', () => 'Bearer'],
  ['the scheme and a space', () => 'Bearer '],
  ['two tokens', () => 'Bearer a b'],
  ['the key plus another token', (key) => `Bearer ${key} ${key}`],
  ['characters outside b64token', (key) => `Bearer ${key}!`],
  ['a non-ASCII character', (key) => `Bearer ${key}é`],
  ['no space after the scheme', (key) => `Bearer${key}`],
  ['a comma-separated pair', (key) => `Bearer ${key}, Bearer ${key}`],
  ['an empty value', () => ''],
]

/** Registers the standard authentication tests for one operation, over `inject` or a listening server. */
export function registerAuthChecks(op: Operation, options: { listen?: boolean } = {}): void {
  describe(`${op.name}: authentication${options.listen ? ' (listening server)' : ''}`, () => {
    // One app for the tests of this operation, each with an account and key of its own (a test with settings of its
    // own gets its own app): an app and a PostgreSQL schema per test cost more than the tests, most of all on
    // PostgreSQL over a listening server. Its clock moves a minute before each test, so no test meets the address
    // limit's count of another's 401s.
    let shared: Promise<Harness> | undefined
    const closers: Array<() => Promise<void>> = []
    after(async () => {
      // In the order they were registered, as a test's own `after` hooks run: the app before its schema.
      for (const close of closers) await close()
    })
    async function setup(t: { after: (fn: () => Promise<void>) => void }, env?: NodeJS.ProcessEnv) {
      let h: Harness
      if (env || op.fresh) h = await startHarness(t, { listen: options.listen, env })
      else {
        shared ??= startHarness(
          { after: (close: () => Promise<void>) => closers.push(close) },
          { listen: options.listen },
        )
        h = await shared
        h.clock.advance(60_000)
      }
      const account = await h.newAccount()
      const url = await op.url(h, account)
      const send = sender(h)
      const call = (headers: Record<string, string>, target = url) =>
        send({ method: op.method, url: target, headers, body: op.body })
      return { h, account, call }
    }

    test('without an Authorization header: 401 missing_api_key and a bare Bearer challenge', async (t) => {
      const { call } = await setup(t)
      expectUnauthorized(await call({}), 'missing_api_key', 'none')
    })

    test('another scheme (Basic): 401 invalid_authorization_header', async (t) => {
      const { call, account } = await setup(t)
      const basic = `Basic ${Buffer.from(`user:${account.key}`).toString('base64')}`
      expectUnauthorized(await call({ authorization: basic }), 'invalid_authorization_header', 'invalid_request')
    })

    for (const [what, header] of MALFORMED) {
      test(`a malformed header (${what}): 401 invalid_authorization_header`, async (t) => {
        const { call, account } = await setup(t)
        expectUnauthorized(
          await call({ authorization: header(account.key) }),
          'invalid_authorization_header',
          'invalid_request',
        )
      })
    }

    test('the key without a scheme: 401, and the key is not echoed back', async (t) => {
      const { call, account } = await setup(t)
      const response = await call({ authorization: account.key })
      expectUnauthorized(response, 'invalid_authorization_header', 'invalid_request')
      assert.ok(!response.body.includes(account.key.slice('ps_test_'.length)), response.body)
    })

    test(
      'no 401 repeats the credential, whatever the scheme ' + 'or form (KEY ps_test_…, the key as the scheme …)',
      async (t) => {
        const { call, account } = await setup(t)
        const { key } = account
        const unknown = key.slice(0, -4) + (key.endsWith('AAAA') ? 'BBBB' : 'AAAA')
        const headers = [
          `KEY ${key}`,
          `Token ${key}`,
          `ApiKey ${key}`,
          `${key} ${key}`,
          `${key} x`,
          key,
          `Bearer ${key}!`,
          `Bearer ${key} ${key}`,
          `Bearer ${key}é`,
          bearer(unknown).authorization,
          `Basic ${Buffer.from(`u:${key}`).toString('base64')}`,
        ]
        for (const header of headers) {
          const response = await call({ authorization: header })
          assert.equal(response.statusCode, 401, header)
          const said = response.body + JSON.stringify(response.headers)
          // Every long-enough part of the header (a scheme that is really a key included) stays unsaid.
          for (const part of header.split(/\s+/).filter((p) => p.length >= 8))
            assert.ok(!said.includes(part), `${header} → ${response.body}`)
          assert.ok(
            !said.includes(key.slice('ps_test_'.length, 'ps_test_'.length + 12)),
            `${header} → ${response.body}`,
          )
        }
      },
    )

    test('the scheme name is case-insensitive (bearer, BEARER, BeArEr)', async (t) => {
      const { call, account, h } = await setup(t)
      for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
        const response = await call(
          { authorization: `${scheme} ${account.key}` },
          op.once ? await op.url(h, account) : undefined,
        )
        assert.equal(response.statusCode, op.ok, `${scheme}: ${response.body}`)
      }
    })

    test('an unknown key of the right form: 401 invalid_api_key, error="invalid_token"', async (t) => {
      const { call, account } = await setup(t)
      const unknown = account.key.slice(0, -4) + (account.key.endsWith('AAAA') ? 'BBBB' : 'AAAA')
      expectUnauthorized(await call(bearer(unknown)), 'invalid_api_key', 'invalid_token')
      expectUnauthorized(await call(bearer('not-a-petstore-key')), 'invalid_api_key', 'invalid_token')
    })

    test('a revoked key is refused from the very next request on', async (t) => {
      const { call, account, h } = await setup(t)
      assert.equal((await call(bearer(account.key))).statusCode, op.ok)
      await h.services.accounts.revokeApiKey(account.keyId, { actor: testActor })
      expectUnauthorized(await call(bearer(account.key)), 'invalid_api_key', 'invalid_token')
    })

    test('production refuses a ps_test_ key from its own database and accepts ps_live_ keys', async (t) => {
      const { call, account, h } = await setup(t, { PETSTORE_ENV: 'production' })
      assert.match(account.key, /^ps_live_/)
      assert.equal((await call(bearer(account.key))).statusCode, op.ok)
      const testKey = await h.services.accounts.createApiKey({
        actor: testActor,
        accountId: account.accountId,
        environment: 'test',
      })
      expectUnauthorized(await call(bearer(testKey.key)), 'invalid_api_key', 'invalid_token')
    })

    test('development refuses a ps_live_ key from its own database', async (t) => {
      const { call, account, h } = await setup(t)
      const liveKey = await h.services.accounts.createApiKey({
        actor: testActor,
        accountId: account.accountId,
        environment: 'live',
      })
      expectUnauthorized(await call(bearer(liveKey.key)), 'invalid_api_key', 'invalid_token')
    })

    test('a refused request changes nothing', async (t) => {
      const { call, h } = await setup(t)
      const pets = async () =>
        (
          await h.handle.db
            .selectFrom('pets')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n
      const liveOrders = async () =>
        (
          await h.handle.db
            .selectFrom('orders')
            .where('cancelled_at', 'is', null)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n
      const count = async () => `${await pets()} pets, ${await liveOrders()} live orders`
      const before = await count()
      for (const headers of [{}, { authorization: 'Basic eDp5' }, bearer('ps_test_unknown')])
        assert.equal((await call(headers)).statusCode, 401)
      assert.equal(await count(), before)
    })
  })
}
