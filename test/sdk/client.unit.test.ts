// The client's own rules, without a service: the back-off schedule, Retry-After, reading the next cursor from
// a Link header, and the constructor's defaults and checks.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  DEFAULT_BASE_URL,
  DEFAULT_MESSAGES_URL,
  NotFoundError,
  Petstore,
  PetstoreError,
  RateLimitError,
} from '../../sdk/src/index.js'
import { nextCursorOf } from '../../sdk/src/paging.js'
import { backoffMs, retryDelayMs } from '../../sdk/src/retry.js'

const error429 = (retryAfter?: string, code = 'rate_limit_exceeded') =>
  new RateLimitError(
    'limited',
    429,
    code,
    undefined,
    new Headers(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
  )

test('back-off: 0.5 s doubling, capped at 8 s, less up to 25 % of jitter', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n, 0)),
    [500, 1000, 2000, 4000, 8000, 8000, 8000],
  )
  assert.deepEqual([1, 5].map((n) => backoffMs(n, 0.999999)).map(Math.round), [375, 6000])
  for (let i = 0; i < 100; i++) {
    const ms = backoffMs(2)
    assert.ok(ms > 750 && ms <= 1000, String(ms))
  }
})

test(
  'Retry-After up to 60 s is the wait plus jitter over up to 1 s or 10 %; ' +
    'longer, or no retries left, or a ban: no retry',
  () => {
    assert.equal(retryDelayMs(error429('1'), 1, 2, 0), 1000)
    assert.equal(retryDelayMs(error429('1'), 1, 2, 0.5), 1500, 'under 10 s: spread over 1 s')
    assert.equal(retryDelayMs(error429('60'), 1, 2, 0), 60_000)
    assert.equal(retryDelayMs(error429('60'), 1, 2, 0.5), 63_000, '10 % of 60 s: spread over 6 s')
    assert.equal(retryDelayMs(error429('61'), 1, 2), undefined)
    assert.equal(retryDelayMs(error429('1'), 3, 2), undefined)
    assert.equal(retryDelayMs(error429('1', 'temporarily_banned'), 1, 2), undefined)
    assert.equal(retryDelayMs(error429(), 2, 2, 0), 1000, 'no Retry-After: the back-off')
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString()
    const wait = retryDelayMs(error429(inTenSeconds), 1, 2, 0)!
    assert.ok(wait >= 9000 && wait <= 11_000, `an HTTP-date Retry-After: ${wait}`)
    assert.equal(error429('7').retryAfter, 7)
  },
)

test('the next cursor comes from the rel="next" link only, whatever the order and spelling', () => {
  assert.equal(nextCursorOf('<http://h/v1/pets?limit=20&cursor=abc.def>; rel="next"'), 'abc.def')
  assert.equal(nextCursorOf('<https://h/v1/pets?cursor=a%2Bb>; rel=next'), 'a+b')
  assert.equal(nextCursorOf('</v1/pets?cursor=p>; rel="prev", </v1/pets?cursor=n>; rel="next"'), 'n')
  assert.equal(nextCursorOf('<http://h/v1/pets?cursor=x>; title="a, b"; rel="Next last"'), 'x')
  assert.equal(
    nextCursorOf('<http://h/v1/pets>; rel="successor-version", <http://h/docs>; rel="deprecation"'),
    undefined,
  )
  assert.equal(nextCursorOf(null), undefined)
})

test("defaults: the local service's URLs, 2 retries; no key is a TypeError; bad counts are RangeErrors", () => {
  const saved = { ...process.env }
  try {
    for (const name of ['PETSTORE_API_KEY', 'PETSTORE_BASE_URL', 'PETSTORE_MESSAGES_URL']) delete process.env[name]
    assert.throws(() => new Petstore(), TypeError)
    const ps = new Petstore({ apiKey: 'ps_test_x' })
    assert.deepEqual([ps.baseUrl, ps.messagesUrl], [DEFAULT_BASE_URL, DEFAULT_MESSAGES_URL])
    assert.deepEqual([DEFAULT_BASE_URL, DEFAULT_MESSAGES_URL], ['http://127.0.0.1:8080/v1', 'http://127.0.0.1:8081'])
    Object.assign(process.env, {
      PETSTORE_API_KEY: 'ps_test_y',
      PETSTORE_BASE_URL: 'https://api.example/v1/',
      PETSTORE_MESSAGES_URL: 'https://m.example',
    })
    const fromEnv = new Petstore()
    assert.deepEqual([fromEnv.baseUrl, fromEnv.messagesUrl], ['https://api.example/v1', 'https://m.example'])
    assert.throws(() => new Petstore({ maxRetries: -1 }), RangeError)
    assert.throws(() => new Petstore({ timeoutMs: 0 }), RangeError)
  } finally {
    process.env = saved
  }
})

test(
  'the fetch option is used for every attempt, ' + 'with the key, JSON and a quoted Idempotency-Key on POST',
  async () => {
    const seen: Request[] = []
    const fetchStub: typeof fetch = async (input, init) => {
      seen.push(new Request(input, init))
      return new Response('{"id":9223372036854775807,"name":"Rex","categoryId":1}', {
        status: 201,
        headers: { 'content-type': 'application/json' },
      })
    }
    const ps = new Petstore({ apiKey: 'ps_test_k', baseUrl: 'http://api.invalid/v1', fetch: fetchStub })
    const pet = await ps.pets.create({ name: 'Rex', categoryId: 9223372036854775807n }, { idempotencyKey: 'a"b' })
    assert.equal(pet.id, 9223372036854775807n)
    const [request] = seen
    assert.equal(request!.url, 'http://api.invalid/v1/pets')
    assert.equal(request!.headers.get('authorization'), 'Bearer ps_test_k')
    assert.equal(request!.headers.get('idempotency-key'), '"a\\"b"')
    assert.equal(await request!.text(), '{"name":"Rex","categoryId":9223372036854775807}')
    assert.ok(new PetstoreError('x', 400, 'c', undefined, new Headers()) instanceof Error)
  },
)

test(
  'cancel: a 404 after a 5xx resolves (the 5xx may have cancelled), ' + 'after a 408 it throws; get never does this',
  async () => {
    const answering = (...statuses: number[]): typeof fetch => {
      let i = 0
      return async () => {
        const status = statuses[Math.min(i++, statuses.length - 1)]!
        return new Response(JSON.stringify({ code: status === 404 ? 'order_not_found' : 'x', message: 'm', status }), {
          status,
          headers: { 'retry-after': '0' },
        })
      }
    }
    const client = (fetchStub: typeof fetch) =>
      new Petstore({ apiKey: 'ps_test_k', baseUrl: 'http://api.invalid/v1', fetch: fetchStub })
    await client(answering(503, 404)).orders.cancel(1)
    await assert.rejects(client(answering(408, 404)).orders.cancel(1), NotFoundError)
    await assert.rejects(client(answering(404)).orders.cancel(1), NotFoundError)
    await assert.rejects(client(answering(503, 404)).orders.get(1), NotFoundError)
  },
)
