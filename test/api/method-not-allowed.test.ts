// A 405 is what the client gets, what the log says and what /metrics counts: never a 500 behind the scenes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, errorOf, startHarness } from '../helpers/harness.js'

test('a 405 is answered, logged and counted in /metrics as a 405, and nothing is logged as failed', async (t) => {
  const lines: { level: number; msg: string; path?: string; status?: number }[] = []
  const stream = { write: (line: string) => void lines.push(JSON.parse(line)) }
  const h = await startHarness(t, { logger: { level: 'info', stream } })
  const { key } = await h.newAccount()
  for (const headers of [{}, bearer(key)]) {
    const response = await h.app.inject({ method: 'DELETE', url: '/v1/pets', headers })
    assert.equal(response.statusCode, 405)
    assert.equal(errorOf(response).code, 'method_not_allowed')
  }
  await new Promise((resolve) => setImmediate(resolve))
  const requestLines = lines.filter((l) => l.path === '/v1/pets')
  assert.deepEqual(
    requestLines.map((l) => [l.msg, l.status]),
    [
      ['request', 405],
      ['request', 405],
    ],
  )
  assert.ok(
    lines.every((l) => l.level < 50),
    JSON.stringify(lines.filter((l) => l.level >= 50)),
  )

  const metrics = await h.app.inject({ url: '/metrics' })
  assert.match(
    metrics.body,
    /petstore_http_request_duration_seconds_count\{listener="pets",method="DELETE",route="\/v1\/pets",status="405"\} 2/,
  )
  assert.doesNotMatch(metrics.body, /status="500"/)
})
