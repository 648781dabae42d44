// The OpenAPI documents say what the service does. For every operation of both documents (iterated from the
// documents, so operations added later are covered), requests that reach each status it can give are replayed
// through the real app, and each response is held to the document: status declared, required headers present,
// every header sent declared, body valid against the schema. With RECORD_RESPONSES=dir (set while running the
// suite), every response the other tests recorded there is checked too.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { isSafeNumber, parse, stringify } from 'lossless-json'
import type { AccountsRepository } from '../../src/modules/accounts/accounts.repository.js'
import { SCOPES } from '../../src/modules/accounts/key-scopes.js'
import { testActor } from '../helpers/actors.js'
import { createContractChecker, recordedResponses, type RecordedResponse } from '../helpers/contract.js'
import { startHarness } from '../helpers/harness.js'
import { startMessagesHarness } from '../helpers/messages-harness.js'

type Doc = Record<string, any>
type App = {
  inject: (
    o: Record<string, unknown>,
  ) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>
}

/** The document with its int64 examples exact (bigint). */
async function documentOf(app: App, url: string): Promise<Doc> {
  const res = await app.inject({ url })
  assert.equal(res.statusCode, 200)
  return parse(res.body, null, (n) => (isSafeNumber(n) ? Number(n) : BigInt(n))) as Doc
}

const NOW = new Date('2027-01-01T00:00:30Z')

/** Sends every request a generic client can make of each operation, reaching every status it can give. */
async function replay(
  h: {
    app: App
    clock: { set: (d: Date | number) => void }
    newAccount: (i?: Record<string, unknown>) => Promise<{ key: string; accountId: string }>
    handle: { db: any }
    services: { accounts: Pick<AccountsRepository, 'createApiKey'> }
  },
  listener: string,
  doc: Doc,
): Promise<RecordedResponse[]> {
  const base = new URL(doc.servers[0].url).pathname.replace(/\/$/, '')
  const responses: RecordedResponse[] = []
  const send = async (method: string, url: string, headers: Record<string, string> = {}, payload?: string) => {
    const res = await h.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) })
    responses.push({ listener, method, url, status: res.statusCode, headers: res.headers, body: res.body })
    return res
  }
  const { key, accountId } = await h.newAccount({ plan: 'business' })
  const auth = { authorization: `Bearer ${key}` }
  // 403 insufficient_scope: a key of the account with every scope but the operation's (issue 26).
  const { accounts } = h.services
  const withoutScope = async (scope: string) =>
    (
      await accounts.createApiKey({
        actor: testActor,
        accountId,
        environment: 'test',
        scopes: SCOPES.filter((s) => s !== scope),
      })
    ).key
  const json = { ...auth, 'content-type': 'application/json' }
  const ops = Object.entries(doc.paths as Doc).flatMap(([path, item]) =>
    Object.entries(item as Doc).map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as Doc })),
  )
  const exampleOf = (media: Doc | undefined) => (media?.example === undefined ? undefined : stringify(media.example)!)
  const fill = (path: string, value: (schema: Doc) => string) =>
    base +
    path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      value(ops.flatMap((o) => o.op.parameters ?? []).find((p: Doc) => p.name === name)?.schema ?? {}),
    )
  const missingId = (schema: Doc) => (schema.type === 'integer' ? '987654321' : 'nope')

  // Creations first (201/202 and their Locations), then the reads of what was created.
  const created: string[] = []
  for (const { path, method, op } of ops.filter((o) => o.op.requestBody)) {
    const url = fill(path, missingId)
    const example = op.requestBody.content['application/json']?.example as Doc | undefined
    // An operation whose body has no example cannot be called by a generic client; its other answers still are.
    if (example === undefined || typeof example !== 'object') continue
    const body = stringify(example)!
    const withKey = { ...json, 'idempotency-key': '"contract-1"' }
    const res = await send(method, url, withKey, body)
    assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${op.operationId}: ${res.statusCode} ${res.body}`)
    if (res.headers.location) created.push(String(res.headers.location))
    await send(method, url, withKey, body) // replayed
    await send(method, url, withKey, stringify({ ...example, unknownField: 1 })!) // 400 invalid_body
    const firstString = Object.keys(example).find((k) => typeof example[k] === 'string')
    if (firstString) {
      const changed = `${example[firstString]} (changed)`
      await send(method, url, withKey, stringify({ ...example, [firstString]: changed })!) // 422
    }
    await send(method, url, json, '{}') // 400 invalid_body
    await send(method, url, json, '{"a":') // 400 invalid_json
    await send(method, url, auth, body) // 400 invalid_content_type
    await send(method, url, { ...json, 'idempotency-key': 'a b' }, body) // 400 invalid_idempotency_key
    await send(method, url, json, JSON.stringify({ pad: 'x'.repeat(70 * 1024) })) // 413
  }
  for (const { path, method, op } of ops) {
    const template = new RegExp(`^${base}${path.replace(/\{[^}]+\}/g, '[^/]+')}$`)
    const url = fill(path, missingId)
    const bodyless = !op.requestBody
    if (bodyless) {
      for (const location of created.filter((l) => template.test(l))) await send(method, location, auth) // 200
      await send(method, url, auth) // 200 for a list, 404 for an item
      await send(method, `${url}?unknown=1`, auth) // 400
      if (/\{/.test(path)) await send(method, base + path.replace(/\{[^}]+\}/g, 'x'.repeat(200)), auth) // 400 or 404
    }
    await send(method, url) // 401 missing_api_key
    await send(method, url, { authorization: 'Bearer ps_test_unknown' }) // 401 invalid_api_key
    await send(method, url, { authorization: 'Basic eDp5' }) // 401 invalid_authorization_header
    const scope = op.security?.[0]?.bearerAuth?.[0] as string | undefined
    if (scope)
      await send(
        method,
        url,
        { ...json, authorization: `Bearer ${await withoutScope(scope)}` },
        exampleOf(op.requestBody?.content['application/json']),
      ) // 403 insufficient_scope
    for (const parameter of (op.parameters ?? []) as Doc[]) {
      if (parameter.in === 'query' && parameter.schema?.type === 'integer')
        await send(method, `${url}?${parameter.name}=0`, auth) // 400
      // 400 invalid_cursor
      if (parameter.in === 'query' && parameter.name === 'cursor') await send(method, `${url}?cursor=forged`, auth)
    }
  }
  // Paging: a list with more than one page sends Link.
  for (const { path, op } of ops.filter((o) => o.method === 'GET' && !/\{/.test(o.path))) {
    if ((op.parameters ?? []).some((p: Doc) => p.name === 'limit')) await send('GET', `${base}${path}?limit=1`, auth)
  }
  // 429: an account with one request a minute; then a key banned for repeating while limited.
  const limited = await h.newAccount({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
  for (const { path, method, op } of ops) {
    const headers = { authorization: `Bearer ${limited.key}`, 'content-type': 'application/json' }
    for (let i = 0; i < 33; i++)
      await send(method, fill(path, missingId), headers, exampleOf(op.requestBody?.content['application/json']))
  }
  // 410: deprecated operations past their sunset.
  h.clock.set(new Date('2031-01-01T00:00:30Z'))
  for (const { path, method, op } of ops.filter((o) => o.op.deprecated))
    await send(method, fill(path, missingId), json, exampleOf(op.requestBody?.content['application/json']))
  h.clock.set(NOW)
  // 500: the tables are gone.
  await sql`DROP TABLE IF EXISTS pets`.execute(h.handle.db)
  await sql`DROP TABLE IF EXISTS messages`.execute(h.handle.db)
  for (const { path, method, op } of ops)
    await send(method, fill(path, missingId), json, exampleOf(op.requestBody?.content['application/json']))
  return responses
}

/** Asserts every response keeps the contract, and that the replay reached the statuses expected of it. */
function assertContract(doc: Doc, responses: RecordedResponse[], expected: Record<string, number[]>) {
  const checker = createContractChecker(doc)
  const problems = new Set<string>()
  const reached = new Map<string, Set<number>>()
  for (const response of responses) {
    for (const problem of checker.check(response) ?? []) problems.add(problem)
    const operation = checker.operationOf(response.method, response.url)
    if (operation)
      reached.set(operation.op.operationId, (reached.get(operation.op.operationId) ?? new Set()).add(response.status))
  }
  assert.deepEqual([...problems], [])
  for (const [operationId, statuses] of Object.entries(expected)) {
    assert.deepEqual(
      [...(reached.get(operationId) ?? [])].filter((s) => statuses.includes(s)).sort(),
      [...statuses].sort(),
      `${operationId} reached ${[...(reached.get(operationId) ?? [])]}`,
    )
  }
}

test('every response of every pet store operation is declared in /v1/openapi.json', async (t) => {
  const h = await startHarness(t, { now: NOW })
  const doc = await documentOf(h.app, '/v1/openapi.json')
  const responses = await replay(h, 'pets', doc)
  assertContract(doc, responses, {
    listPets: [200, 400, 401, 403, 429, 500],
    createPet: [201, 400, 401, 403, 413, 422, 429, 500],
    getPet: [200, 400, 401, 403, 404, 410, 429, 500],
  })
})

test("every response of every messages operation is declared in the messages listener's /openapi.json", async (t) => {
  const h = await startMessagesHarness(t, { now: NOW })
  const doc = await documentOf(h.app, '/openapi.json')
  const responses = await replay(h as never, 'messages', doc)
  assertContract(doc, responses, {
    sendMessage: [202, 400, 401, 403, 413, 422, 429, 500],
    getMessage: [200, 400, 401, 403, 404, 429, 500],
  })
})

test('the check fails when the document drifts: a header declaration removed, a status not declared', async (t) => {
  const h = await startHarness(t, { now: NOW })
  const { key } = await h.newAccount()
  const doc = await documentOf(h.app, '/v1/openapi.json')
  const res = await h.app.inject({ url: '/v1/pets/987654321', headers: { authorization: `Bearer ${key}` } })
  const recorded: RecordedResponse = {
    listener: 'pets',
    method: 'GET',
    url: '/v1/pets/987654321',
    status: res.statusCode,
    headers: res.headers,
    body: res.body,
  }
  assert.deepEqual(createContractChecker(doc).check(recorded), [])

  const noLimitHeader = structuredClone(doc)
  delete noLimitHeader.paths['/pets/{petId}'].get.responses['404'].headers['X-RateLimit-Limit']
  assert.deepEqual(createContractChecker(noLimitHeader).check(recorded), [
    'getPet 404: header x-ratelimit-limit sent but not declared',
  ])

  const no404 = structuredClone(doc)
  delete no404.paths['/pets/{petId}'].get.responses['404']
  assert.deepEqual(createContractChecker(no404).check(recorded), ['getPet 404: status not declared'])

  const wrongBody = {
    ...recorded,
    body: JSON.stringify({ code: 'pet_not_found', message: 'x', status: 404, extra: true }),
  }
  assert.equal(createContractChecker(doc).check(wrongBody)?.length, 1)
  const missingHeader = { ...recorded, headers: { ...recorded.headers } }
  delete missingHeader.headers.sunset
  assert.deepEqual(createContractChecker(doc).check(missingHeader), ['getPet 404: required header sunset missing'])
})

test('the responses the suite recorded (RECORD_RESPONSES) keep the contract', {
  skip: process.env.RECORD_RESPONSES
    ? false
    : 'no recorded responses: npm test records the SQLite pass and checks them right after it',
}, async (t) => {
  const h = await startHarness(t)
  const m = await startMessagesHarness(t)
  const checkers = {
    pets: createContractChecker(await documentOf(h.app, '/v1/openapi.json')),
    messages: createContractChecker(await documentOf(m.app, '/openapi.json')),
  }
  const problems = new Set<string>()
  let checked = 0
  for (const response of recordedResponses()) {
    const found = checkers[response.listener as keyof typeof checkers]?.check(response)
    if (found === undefined) continue
    checked++
    for (const problem of found) problems.add(problem)
  }
  t.diagnostic(`${checked} recorded responses checked`)
  assert.deepEqual([...problems], [])
})
