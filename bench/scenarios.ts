// What is measured. Each scenario is one request shape sent over and over, with the status it must get.
import type { Seeded } from './seed.js'

export interface Scenario {
  name: string
  description: string
  listener: 'pets' | 'messages'
  method: 'GET' | 'POST'
  path: string
  headers: Record<string, string>
  body?: string
  /** Give every request its own Idempotency-Key. */
  uniqueIdempotencyKey?: boolean
  /** Requests to send before measuring (e.g. to use up a quota). */
  prime?: number
  expectStatus: number
  /** Each success is a webhook event delivered to the benchmark's receiver: measure how soon (bench/receiver.ts). */
  delivered?: true
}

const json = { 'content-type': 'application/json' }

export function scenarios(s: Seeded): Scenario[] {
  const auth = { authorization: `Bearer ${s.key}` }
  const pet = JSON.stringify({ name: 'Bench', categoryId: 7, status: 'available' })
  return [
    {
      name: 'list-20',
      description: 'GET /v1/pets?limit=20',
      listener: 'pets',
      method: 'GET',
      path: '/v1/pets?limit=20',
      headers: auth,
      expectStatus: 200,
    },
    {
      name: 'list-100',
      description: 'GET /v1/pets?limit=100',
      listener: 'pets',
      method: 'GET',
      path: '/v1/pets?limit=100',
      headers: auth,
      expectStatus: 200,
    },
    {
      name: 'deep-first',
      description: 'first page of the deep account',
      listener: 'pets',
      method: 'GET',
      path: '/v1/pets?limit=20',
      headers: { authorization: `Bearer ${s.deepKey}` },
      expectStatus: 200,
    },
    {
      name: 'deep-page',
      description: 'page behind a cursor at the end of the deep account',
      listener: 'pets',
      method: 'GET',
      path: `/v1/pets?limit=20&cursor=${s.deepCursor}`,
      headers: { authorization: `Bearer ${s.deepKey}` },
      expectStatus: 200,
    },
    {
      name: 'orders-first',
      description: "first page of the deep account's approved orders",
      listener: 'pets',
      method: 'GET',
      path: '/v1/store/orders?limit=20&status=approved',
      headers: { authorization: `Bearer ${s.deepKey}` },
      expectStatus: 200,
    },
    {
      name: 'orders-deep',
      description: 'approved orders behind a cursor at the end of the deep account',
      listener: 'pets',
      method: 'GET',
      path: `/v1/store/orders?limit=20&status=approved&cursor=${s.deepOrdersCursor}`,
      headers: { authorization: `Bearer ${s.deepKey}` },
      expectStatus: 200,
    },
    {
      name: 'get-pet',
      description: 'GET /v1/pets/{id}',
      listener: 'pets',
      method: 'GET',
      path: `/v1/pets/${s.petId}`,
      headers: auth,
      expectStatus: 200,
    },
    {
      name: 'create',
      description: 'POST /v1/pets',
      listener: 'pets',
      method: 'POST',
      path: '/v1/pets',
      headers: { ...auth, ...json },
      body: pet,
      expectStatus: 201,
    },
    {
      name: 'create-subscribed',
      description: 'POST /v1/pets for an account with one webhook endpoint (every event delivered)',
      listener: 'pets',
      method: 'POST',
      path: '/v1/pets',
      headers: { authorization: `Bearer ${s.subscribedKey}`, ...json },
      body: pet,
      expectStatus: 201,
      delivered: true,
    },
    {
      name: 'create-idempotent',
      description: 'POST /v1/pets with a new Idempotency-Key each',
      listener: 'pets',
      method: 'POST',
      path: '/v1/pets',
      headers: { ...auth, ...json },
      body: pet,
      uniqueIdempotencyKey: true,
      expectStatus: 201,
    },
    {
      name: 'unauthorized',
      description: 'GET /v1/pets with an unknown key (401)',
      listener: 'pets',
      method: 'GET',
      path: '/v1/pets',
      headers: { authorization: 'Bearer ps_test_unknownunknownunknownunknownunknownunkno' },
      expectStatus: 401,
    },
    {
      name: 'rate-limited',
      description: 'GET /v1/pets with an exhausted key (429)',
      listener: 'pets',
      method: 'GET',
      path: '/v1/pets',
      headers: { authorization: `Bearer ${s.exhaustedKey}` },
      prime: 1,
      expectStatus: 429,
    },
    {
      name: 'message',
      description: 'POST /messages',
      listener: 'messages',
      method: 'POST',
      path: '/messages',
      headers: { ...auth, ...json },
      body: JSON.stringify({ message: 'Hello from the benchmark' }),
      expectStatus: 202,
    },
  ]
}
