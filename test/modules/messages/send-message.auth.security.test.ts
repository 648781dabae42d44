// POST /messages without a valid key (spec 4.4, 5; issue 4): each case a 401 with the Error body and a
// `WWW-Authenticate: Bearer` challenge, and nothing stored.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectUnauthorized } from '../../helpers/auth-checks.js'
import { injectSender, type HttpResponse } from '../../helpers/http.js'
import { messageRows, startMessagesHarness, type MessagesHarness } from '../../helpers/messages-harness.js'
import { testActor } from '../../helpers/actors.js'

async function setup(t: Parameters<typeof startMessagesHarness>[0]) {
  const h = await startMessagesHarness(t)
  const account = await h.newAccount()
  const send = injectSender(h)
  const post = (headers: Record<string, string>): Promise<HttpResponse> =>
    send({ method: 'POST', url: '/messages', headers, body: { message: 'Hello' } })
  return { h, account, post }
}

/** The refused request left no message behind. */
async function nothingStored(h: MessagesHarness) {
  assert.deepEqual(await messageRows(h), [])
}

test('no Authorization header: 401 missing_api_key, WWW-Authenticate: Bearer', async (t) => {
  const { h, post } = await setup(t)
  const response = await post({})
  expectUnauthorized(response, 'missing_api_key', 'none')
  assert.match(response.headers['www-authenticate'] ?? '', /^Bearer\b/)
  await nothingStored(h)
})

test('Authorization: Basic xxx: 401 invalid_authorization_header', async (t) => {
  const { h, post } = await setup(t)
  const response = await post({ authorization: 'Basic xxx' })
  expectUnauthorized(response, 'invalid_authorization_header', 'invalid_request')
  await nothingStored(h)
})

test('Authorization: Basic with the key as credentials: 401, and the key is not echoed', async (t) => {
  const { h, post, account } = await setup(t)
  const response = await post({ authorization: `Basic ${Buffer.from(`user:${account.key}`).toString('base64')}` })
  expectUnauthorized(response, 'invalid_authorization_header', 'invalid_request')
  assert.ok(!response.body.includes(account.key), response.body)
  await nothingStored(h)
})

test('"Bearer" with no key: 401 invalid_authorization_header', async (t) => {
  const { h, post } = await setup(t)
  expectUnauthorized(await post({ authorization: 'Bearer' }), 'invalid_authorization_header', 'invalid_request')
  expectUnauthorized(await post({ authorization: 'Bearer ' }), 'invalid_authorization_header', 'invalid_request')
  await nothingStored(h)
})

test('"Bearer a b" (two tokens): 401 invalid_authorization_header', async (t) => {
  const { h, post } = await setup(t)
  expectUnauthorized(await post({ authorization: 'Bearer a b' }), 'invalid_authorization_header', 'invalid_request')
  await nothingStored(h)
})

test('the key without the Bearer scheme: 401, and the key is not echoed', async (t) => {
  const { h, post, account } = await setup(t)
  const response = await post({ authorization: account.key })
  expectUnauthorized(response, 'invalid_authorization_header', 'invalid_request')
  assert.ok(!response.body.includes(account.key.slice('ps_test_'.length)), response.body)
  await nothingStored(h)
})

test('an unknown key: 401 invalid_api_key', async (t) => {
  const { h, post, account } = await setup(t)
  const unknown = account.key.slice(0, -4) + (account.key.endsWith('AAAA') ? 'BBBB' : 'AAAA')
  expectUnauthorized(await post({ authorization: `Bearer ${unknown}` }), 'invalid_api_key', 'invalid_token')
  expectUnauthorized(await post({ authorization: 'Bearer not-a-petstore-key' }), 'invalid_api_key', 'invalid_token')
  await nothingStored(h)
})

test('a revoked key: 401 invalid_api_key from the next request on', async (t) => {
  const { h, post, account } = await setup(t)
  const accepted = await post({ authorization: `Bearer ${account.key}` })
  assert.equal(accepted.statusCode, 202, accepted.body)
  await h.services.accounts.revokeApiKey(account.keyId, { actor: testActor })
  expectUnauthorized(await post({ authorization: `Bearer ${account.key}` }), 'invalid_api_key', 'invalid_token')
  assert.equal((await messageRows(h)).length, 1, 'only the message sent before the revocation is stored')
})

test('the scheme name is case-insensitive: bearer and BEARER are accepted', async (t) => {
  const { post, account } = await setup(t)
  for (const scheme of ['bearer', 'BEARER']) {
    const response = await post({ authorization: `${scheme} ${account.key}` })
    assert.equal(response.statusCode, 202, `${scheme}: ${response.body}`)
  }
})

test('authentication comes before the body: a bad body without a key is 401, not 400', async (t) => {
  const { h } = await setup(t)
  const send = injectSender(h)
  for (const [what, headers, body] of [
    ['invalid JSON', { 'content-type': 'application/json' }, '{"message":'],
    ['no message', { 'content-type': 'application/json' }, '{}'],
    ['text/plain', { 'content-type': 'text/plain' }, 'Hello'],
  ] as const) {
    const response = await send({ method: 'POST', url: '/messages', headers, body })
    assert.equal(response.statusCode, 401, `${what}: ${response.body}`)
    expectUnauthorized(response, 'missing_api_key', 'none')
  }
})

test('GET /messages/{id} without a valid key is 401 too, and does not tell whether the message exists', async (t) => {
  const { h, account } = await setup(t)
  const send = injectSender(h)
  const created = await send({
    method: 'POST',
    url: '/messages',
    headers: { authorization: `Bearer ${account.key}` },
    body: { message: 'x' },
  })
  const { id } = JSON.parse(created.body) as { id: string }
  for (const url of [`/messages/${id}`, '/messages/msg_doesnotexist']) {
    expectUnauthorized(await send({ url }), 'missing_api_key', 'none')
    expectUnauthorized(
      await send({ url, headers: { authorization: 'Bearer not-a-petstore-key' } }),
      'invalid_api_key',
      'invalid_token',
    )
  }
})
