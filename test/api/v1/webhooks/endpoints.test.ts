// The webhook endpoints API (issue 36) on the pass's backend: made, listed, changed, disabled, deleted; refused
// URLs and fields said clearly; at most 10; another account's endpoints are 404; every change audited without the
// secret, which is stored sealed and shown only when made or rotated.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_ENDPOINTS } from '../../../../src/modules/webhooks/endpoints.service.js'
import { bearer, errorOf, startHarness } from '../../../helpers/harness.js'
import { roomyAccount } from '../../../helpers/pets.js'
import { addEndpoint } from '../../../helpers/webhooks.js'

const json = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' })

test('an endpoint is made, read, changed, disabled, enabled and deleted; its secret is shown once', async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await roomyAccount(h)
  const made = await h.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: json(key),
    payload: { url: 'http://127.0.0.1:9/in', eventTypes: ['pet.created', 'order.created'], description: 'shop' },
  })
  assert.equal(made.statusCode, 201, made.body)
  const endpoint = made.json<Record<string, unknown> & { id: string; secret: string }>()
  assert.equal(made.headers.location, `/v1/webhook-endpoints/${endpoint.id}`)
  assert.match(endpoint.id, /^ep_[0-9a-f]{24}$/)
  assert.deepEqual(endpoint.eventTypes, ['pet.created', 'order.created'])
  assert.equal(endpoint.enabled, true)

  const stored = await h.handle.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow()
  assert.ok(!stored.secret.includes(endpoint.secret.slice(6)), 'the secret is stored sealed')
  for (const read of [`/v1/webhook-endpoints`, `/v1/webhook-endpoints/${endpoint.id}`]) {
    const res = await h.app.inject({ url: read, headers: bearer(key) })
    assert.equal(res.statusCode, 200)
    assert.ok(!res.body.includes('whsec_') && !res.body.includes('"secret"'), res.body)
  }

  const patch = (payload: unknown) =>
    h.app.inject({
      method: 'PATCH',
      url: `/v1/webhook-endpoints/${endpoint.id}`,
      headers: json(key),
      payload: payload as object,
    })
  const disabled = await patch({ enabled: false })
  assert.deepEqual([disabled.json().enabled, disabled.json().disabledReason], [false, 'integrator'])
  const changed = await patch({ enabled: true, eventTypes: ['*'], description: 'everything' })
  assert.equal(changed.statusCode, 200, changed.body)
  assert.deepEqual(
    [changed.json().enabled, changed.json().disabledReason, changed.json().eventTypes],
    [true, undefined, ['*']],
  )
  assert.equal(errorOf(await patch({})).code, 'invalid_body')

  const gone = await h.app.inject({
    method: 'DELETE',
    url: `/v1/webhook-endpoints/${endpoint.id}`,
    headers: bearer(key),
  })
  assert.equal(gone.statusCode, 204)
  const after = await h.app.inject({ url: `/v1/webhook-endpoints/${endpoint.id}`, headers: bearer(key) })
  assert.deepEqual([after.statusCode, errorOf(after).code], [404, 'webhook_endpoint_not_found'])

  const audit = await h.handle.db
    .selectFrom('audit_events')
    .select(['action', 'changes'])
    .where('account_id', '=', accountId)
    .where('action', 'like', 'webhook_endpoint.%')
    .orderBy('seq')
    .execute()
  assert.deepEqual(
    audit.map((a) => a.action),
    ['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.updated', 'webhook_endpoint.deleted'],
  )
  assert.ok(audit.every((a) => !String(a.changes).includes('whsec_')))
})

test("another account's endpoint is a 404 for every operation", async (t) => {
  const h = await startHarness(t)
  const owner = await roomyAccount(h)
  const other = await roomyAccount(h)
  const { id } = await addEndpoint(h, owner.key)
  const calls = [
    { method: 'GET' as const, url: `/v1/webhook-endpoints/${id}` },
    { method: 'PATCH' as const, url: `/v1/webhook-endpoints/${id}`, payload: { description: 'mine now' } },
    { method: 'DELETE' as const, url: `/v1/webhook-endpoints/${id}` },
    { method: 'POST' as const, url: `/v1/webhook-endpoints/${id}/rotate-secret`, payload: {} },
    { method: 'POST' as const, url: `/v1/webhook-endpoints/${id}/test` },
  ]
  for (const call of calls) {
    const res = await h.app.inject({ ...call, headers: call.payload ? json(other.key) : bearer(other.key) })
    assert.deepEqual(
      [res.statusCode, errorOf(res).code],
      [404, 'webhook_endpoint_not_found'],
      `${call.method} ${call.url}`,
    )
  }
  assert.equal((await h.app.inject({ url: '/v1/webhook-endpoints', headers: bearer(other.key) })).body, '[]')
})

test('refused URLs and fields are 400 invalid_body naming the field and why', async (t) => {
  // An operator's allow-list: loopback is then refused too, as in production.
  const h = await startHarness(t, { env: { WEBHOOK_ALLOWED_NETWORKS: '192.0.2.0/24' } })
  const { key } = await roomyAccount(h)
  const refused = async (payload: Record<string, unknown>, pattern: RegExp) => {
    const res = await h.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: json(key), payload })
    const body = errorOf(res)
    assert.deepEqual([res.statusCode, body.code], [400, 'invalid_body'], JSON.stringify(payload))
    assert.match(body.message, pattern)
  }
  const url = (u: string) => ({ url: u, eventTypes: ['*'] })
  await refused(url('ftp://example.com/x'), /'url'.*https:\/\//)
  await refused(url('http://user:pw@example.com/x'), /'url'.*user name or password/)
  await refused(url('http://example.com/x#frag'), /'url'.*fragment/)
  await refused(url('http://10.0.0.1/x'), /'url'.*private address/)
  await refused(url('http://169.254.169.254/latest/meta-data'), /'url'.*(cloud metadata|link-local)/)
  await refused(url('http://[::ffff:127.0.0.1]/x'), /'url'.*IPv4-mapped/)
  await refused(url('http://127.0.0.1:9/x'), /'url'.*loopback/)
  await refused(url('http://localhost:9/x'), /'url'.*localhost resolves to a loopback address/)
  await refused({ url: 'http://192.0.2.1/x', eventTypes: ['pet.eaten'] }, /'eventTypes.0' must be one of/)
  await refused({ url: 'http://192.0.2.1/x', eventTypes: [] }, /eventTypes/)
  await refused({ url: 'http://192.0.2.1/x', eventTypes: ['*'], description: 'x'.repeat(201) }, /description/)
  await refused({ url: 'http://192.0.2.1/x', eventTypes: ['*'], description: 'a\u202eb' }, /'description'.*control/)
  const allowed = await h.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: json(key),
    payload: url('http://192.0.2.1/x'),
  })
  assert.equal(allowed.statusCode, 201, 'an allowed network is allowed')
})

test(`an account has at most ${MAX_ENDPOINTS} endpoints`, async (t) => {
  const h = await startHarness(t)
  const { key } = await roomyAccount(h)
  await Promise.all(Array.from({ length: MAX_ENDPOINTS }, () => addEndpoint(h, key)))
  const more = await h.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: json(key),
    payload: { url: 'http://127.0.0.1:9/x', eventTypes: ['*'] },
  })
  assert.deepEqual([more.statusCode, errorOf(more).code], [409, 'webhook_endpoint_limit_reached'])
})

test('a test event of a disabled endpoint is refused', async (t) => {
  const h = await startHarness(t)
  const { key } = await roomyAccount(h)
  const { id } = await addEndpoint(h, key)
  await h.app.inject({
    method: 'PATCH',
    url: `/v1/webhook-endpoints/${id}`,
    headers: json(key),
    payload: { enabled: false },
  })
  const res = await h.app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${id}/test`, headers: bearer(key) })
  assert.deepEqual([res.statusCode, errorOf(res).code], [409, 'webhook_endpoint_disabled'])
})
