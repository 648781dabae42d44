// What a caller can see of a call (issue 27): `.withResponse()`, the logger's lines (a retried network error
// included) and PETSTORE_LOG, `retryAfter` on every error whose answer had Retry-After, ConnectionError naming its
// cause; and the constructor's refusals (a live key with the local default URL), idempotency keys without
// crypto.randomUUID, and the toJSON replacer for bigint ids.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { ConnectionError, InternalServerError, Petstore, toJSON } from '../../sdk/src/index.js'
import { errorAnswer, startFaultProxy } from '../helpers/fault-proxy.js'
import { startHarness } from '../helpers/harness.js'
import { freePort } from '../helpers/ports.js'
import { repoRoot } from '../helpers/root.js'
import { clientOf, thrownBy } from '../helpers/sdk.js'

const recorder = () => {
  const lines: string[] = []
  const at = (level: string) => (line: string) => void lines.push(`${level} ${line}`)
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } }
}

test('.withResponse() gives data, the Response, request id and quota; awaiting the call gives the data', async (t) => {
  const h = await startHarness(t, { listen: true })
  const { ps } = clientOf(h.baseUrl, (await h.newAccount()).key)
  const created = await ps.pets.create({ name: 'Rex', categoryId: 1 }).withResponse()
  assert.equal(created.response.status, 201)
  assert.equal(created.data.name, 'Rex')
  assert.equal(created.requestId, created.response.headers.get('x-request-id'))
  assert.deepEqual(created.rateLimit, { limit: 60, remaining: 59, reset: new Date('2027-01-01T00:01:00Z') })
  const pet = await ps.pets.create({ name: 'Max', categoryId: 2 })
  assert.equal(pet.name, 'Max')
  const page = await ps.pets.listPage().withResponse()
  assert.deepEqual(
    page.data.data.map((p) => p.name),
    ['Rex', 'Max'],
  )
  assert.equal(page.data.requestId, page.requestId)
  assert.equal(page.data.rateLimit?.remaining, 57)
  assert.equal((await ps.pets.get(pet.id).withResponse()).response.headers.get('deprecation') !== null, true)
})

test(
  'a refused connection: ConnectionError naming ECONNREFUSED and the address; ' +
    'one log line per attempt and per retry',
  async () => {
    const port = await freePort()
    const { lines, logger } = recorder()
    const { ps } = clientOf(`http://127.0.0.1:${port}`, 'ps_test_k', { maxRetries: 1, logger, logLevel: 'debug' })
    const err = await thrownBy(() => ps.pets.listPage())
    assert.ok(err instanceof ConnectionError)
    assert.match(
      err.message,
      new RegExp(
        `^GET http://127\\.0\\.0\\.1:${port}/v1/pets: ECONNREFUSED 127\\.0\\.0\\.1:${port} \\(fetch failed\\)$`,
      ),
    )
    const url = `http://127.0.0.1:${port}/v1/pets`
    assert.equal(lines.length, 3, lines.join('\n'))
    assert.match(
      lines[0]!,
      new RegExp(`^warn petstore: GET ${url} → ConnectionError after \\d+ ms \\(attempt 1\\): .*ECONNREFUSED`),
    )
    assert.match(lines[1]!, new RegExp(`^info petstore: GET ${url}: retry 1 of 1 in 0\\.\\d s$`))
    assert.match(lines[2]!, /^warn petstore: .* \(attempt 2\): .*ECONNREFUSED/)
  },
)

test(
  'a retried network error in the log, then success; ' + 'PETSTORE_LOG=debug logs to the console, the key never',
  async (t) => {
    const h = await startHarness(t, { listen: true })
    const account = await h.newAccount()
    const proxy = await startFaultProxy(t, h.baseUrl)
    proxy.next({ drop: 'after-answer' })
    const { lines, logger } = recorder()
    const { ps } = clientOf(proxy.origin, account.key, { logger, logLevel: 'debug' })
    await ps.pets.create({ name: 'Rex', categoryId: 1 })
    assert.deepEqual(
      lines.map((l) => l.split(' ')[0]),
      ['warn', 'info', 'debug'],
    )
    assert.match(
      lines[0]!,
      /POST .*\/v1\/pets → ConnectionError .*\(attempt 1\): .*(ECONNRESET|other side closed|socket)/i,
    )
    assert.match(lines[2]!, /→ 201 in \d+ ms \(attempt 2, request [0-9a-f-]{36}, quota 5\d\/60\)$/)
    const script = `import { Petstore } from '${new URL('sdk/src/index.ts', repoRoot).pathname}'
await new Petstore({ apiKey: process.argv[1], baseUrl: process.argv[2] }).pets.listPage()`
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, account.key, `${h.baseUrl}/v1`],
      { env: { ...process.env, PETSTORE_LOG: 'debug' } },
    )
    assert.match(stdout + stderr, /petstore: GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets → 200 in \d+ ms \(attempt 1/)
    assert.ok(!(stdout + stderr).includes(account.key), 'the key is never logged')
    assert.throws(() => new Petstore({ apiKey: 'ps_test_k', logLevel: 'loud' as 'debug' }), RangeError)
  },
)

test(
  'every error carries retryAfter when its answer had Retry-After: ' + 'a 503 with Retry-After: 120 is thrown at once',
  async (t) => {
    const h = await startHarness(t, { listen: true })
    const proxy = await startFaultProxy(t, h.baseUrl)
    proxy.next(errorAnswer(503, 'service_unavailable', { 'retry-after': '120' }))
    const { ps } = clientOf(proxy.origin, (await h.newAccount()).key)
    const err = await thrownBy(() => ps.pets.listPage())
    assert.ok(err instanceof InternalServerError)
    assert.equal(err.retryAfter, 120)
    assert.equal(proxy.requests.length, 1, 'longer than 60 s: not waited')
  },
)

test('a ps_live_ key with the local default baseUrl is refused, saying to set baseUrl; with one it is fine', () => {
  const saved = process.env.PETSTORE_BASE_URL
  delete process.env.PETSTORE_BASE_URL
  try {
    assert.throws(() => new Petstore({ apiKey: 'ps_live_abc' }), /set PETSTORE_BASE_URL|pass \{ baseUrl \}/)
    assert.equal(
      new Petstore({ apiKey: 'ps_live_abc', baseUrl: 'https://api.example/v1' }).baseUrl,
      'https://api.example/v1',
    )
    assert.equal(new Petstore({ apiKey: 'ps_test_abc' }).baseUrl, 'http://127.0.0.1:8080/v1')
  } finally {
    if (saved !== undefined) process.env.PETSTORE_BASE_URL = saved
  }
})

test('without crypto.randomUUID (an http page that is not localhost) a POST still gets a UUID v4 key', async (t) => {
  const h = await startHarness(t, { listen: true })
  const proxy = await startFaultProxy(t, h.baseUrl)
  const { ps } = clientOf(proxy.origin, (await h.newAccount()).key)
  const randomUUID = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(globalThis.crypto), 'randomUUID')!
  Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true })
  try {
    await ps.pets.create({ name: 'Rex', categoryId: 1 })
    await ps.pets.create({ name: 'Rex', categoryId: 1 })
  } finally {
    delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID
    assert.equal(typeof Object.getPrototypeOf(globalThis.crypto).randomUUID, typeof randomUUID.value)
  }
  const keys = proxy.requests.map((r) => String(r.headers['idempotency-key']))
  for (const key of keys) assert.match(key, /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/)
  assert.notEqual(keys[0], keys[1])
})

test('toJSON: JSON.stringify(pet, toJSON) writes bigint ids as decimal strings (JSON.stringify alone throws)', () => {
  const pet = { id: 9223372036854775807n, name: 'Rex', categoryId: 1n, tags: [2n] }
  assert.throws(() => JSON.stringify(pet), TypeError)
  assert.equal(JSON.stringify(pet, toJSON), '{"id":"9223372036854775807","name":"Rex","categoryId":"1","tags":["2"]}')
})
