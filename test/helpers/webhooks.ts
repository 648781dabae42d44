// Webhook endpoints and events in tests: an endpoint made through the API, and the operations of the webhooks area
// for the checks every operation passes (scopes).
import assert from 'node:assert/strict'
import type { Operation } from './auth-checks.js'
import { bearer, type Harness } from './harness.js'

const json = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' })

/** An endpoint made through the API (201), with its id and secret. */
export async function addEndpoint(
  h: Harness,
  key: string,
  url = 'http://127.0.0.1:9/hooks',
  eventTypes: string[] = ['*'],
): Promise<{ id: string; secret: string }> {
  const made = await h.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: json(key),
    payload: { url, eventTypes, description: 'test receiver' },
  })
  assert.equal(made.statusCode, 201, made.body)
  return made.json<{ id: string; secret: string }>()
}

/** A new endpoint and one event of the account: a test event sent to it. */
async function anEvent(h: Harness, key: string): Promise<{ endpointId: string; eventId: string }> {
  const { id } = await addEndpoint(h, key)
  const sent = await h.app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${id}/test`, headers: bearer(key) })
  assert.equal(sent.statusCode, 202, sent.body)
  return { endpointId: id, eventId: sent.json<{ id: string }>().id }
}

export const WEBHOOK_OPERATIONS: Operation[] = [
  { name: 'listWebhookEndpoints', method: 'GET', url: async () => '/v1/webhook-endpoints', ok: 200 },
  {
    name: 'createWebhookEndpoint',
    method: 'POST',
    url: async () => '/v1/webhook-endpoints',
    body: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['pet.created'] },
    ok: 201,
  },
  {
    name: 'getWebhookEndpoint',
    method: 'GET',
    url: async (h, a) => `/v1/webhook-endpoints/${(await addEndpoint(h, a.key)).id}`,
    ok: 200,
  },
  {
    name: 'updateWebhookEndpoint',
    method: 'PATCH',
    url: async (h, a) => `/v1/webhook-endpoints/${(await addEndpoint(h, a.key)).id}`,
    body: { description: 'changed' },
    ok: 200,
  },
  {
    name: 'deleteWebhookEndpoint',
    method: 'DELETE',
    url: async (h, a) => `/v1/webhook-endpoints/${(await addEndpoint(h, a.key)).id}`,
    ok: 204,
    once: true,
  },
  {
    name: 'rotateWebhookEndpointSecret',
    method: 'POST',
    url: async (h, a) => `/v1/webhook-endpoints/${(await addEndpoint(h, a.key)).id}/rotate-secret`,
    body: {},
    ok: 200,
  },
  {
    name: 'sendWebhookTestEvent',
    method: 'POST',
    url: async (h, a) => `/v1/webhook-endpoints/${(await addEndpoint(h, a.key)).id}/test`,
    ok: 202,
  },
  { name: 'listEvents', method: 'GET', url: async () => '/v1/events', ok: 200 },
  { name: 'getEvent', method: 'GET', url: async (h, a) => `/v1/events/${(await anEvent(h, a.key)).eventId}`, ok: 200 },
  {
    name: 'listWebhookAttempts',
    method: 'GET',
    url: async (h, a) => `/v1/webhook-endpoints/${(await addEndpoint(h, a.key)).id}/attempts`,
    ok: 200,
  },
  {
    name: 'recoverWebhookEvents',
    method: 'POST',
    url: async (h, a) => `/v1/webhook-endpoints/${(await addEndpoint(h, a.key)).id}/recover`,
    body: { since: '2020-01-01T00:00:00Z' },
    ok: 202,
  },
]
