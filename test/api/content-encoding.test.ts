// A body in a Content-Encoding the service does not decode is refused with 415 unsupported_content_encoding, on both
// interfaces, never read as if it were plain; `identity` is plain. On the run's backend (nothing is stored).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { bearer, errorOf } from '../helpers/harness.js'
import { startMessagesHarness } from '../helpers/messages-harness.js'

const cases = [
  { url: '/v1/pets', body: '{"name":"Rex","categoryId":1}', created: 201 },
  { url: '/messages', body: '{"message":"Hello"}', created: 202 },
]

test(
  'a gzip (or br, or deflate, any case) body is a 415 with ' +
    'the Error body and the rate-limit headers; nothing is stored',
  async (t) => {
    const h = await startMessagesHarness(t, { pets: true })
    const { key } = await h.newAccount()
    for (const { url, body } of cases) {
      const app = url === '/messages' ? h.app : h.pets!
      for (const [encoding, payload] of [
        ['gzip', gzipSync(body)],
        ['GZip', gzipSync(body)],
        ['br', Buffer.from(body)],
        ['deflate, gzip', Buffer.from(body)],
      ] as const) {
        const response = await app.inject({
          method: 'POST',
          url,
          headers: { ...bearer(key), 'content-type': 'application/json', 'content-encoding': encoding },
          payload,
        })
        assert.equal(response.statusCode, 415, `${url} ${encoding}: ${response.body}`)
        const error = errorOf(response)
        assert.equal(error.code, 'unsupported_content_encoding')
        assert.match(error.message, /Content-Encoding/)
        assert.ok(response.headers['x-ratelimit-remaining'] !== undefined, 'rate-limit headers')
      }
    }
    assert.equal((await h.pets!.inject({ url: '/v1/pets', headers: bearer(key) })).body, '[]')
    assert.deepEqual(await h.handle.db.selectFrom('messages').select('id').execute(), [])
  },
)

test('Content-Encoding: identity (or none) is a plain body', async (t) => {
  const h = await startMessagesHarness(t, { pets: true })
  const { key } = await h.newAccount()
  for (const { url, body, created } of cases) {
    const app = url === '/messages' ? h.app : h.pets!
    for (const headers of [{ 'content-encoding': 'identity' }, { 'content-encoding': 'Identity ' }, {}]) {
      const response = await app.inject({
        method: 'POST',
        url,
        headers: { ...bearer(key), 'content-type': 'application/json', ...headers },
        payload: body,
      })
      assert.equal(response.statusCode, created, `${url} ${JSON.stringify(headers)}: ${response.body}`)
    }
  }
})

test('the key is checked first: an encoded body without a key is a 401', async (t) => {
  const h = await startMessagesHarness(t, { pets: true })
  const response = await h.pets!.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    payload: gzipSync('{}'),
  })
  assert.equal(response.statusCode, 401)
})
