// What a proxy in front of the service must do, run the same way for deploy/haproxy.cfg and deploy/nginx.conf:
// keep /metrics and the console to itself, tell the service the client's address, lose no request when an instance
// stops, and answer the JSON 503 with Retry-After when none is left.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { pollUntil } from '../helpers/within.js'
import {
  assertErrorBody,
  call,
  closeAgents,
  readyStatus,
  servedBy,
  twoInstances,
  untilReady,
  type Answer,
  type Instance,
} from './support.js'

type T = Parameters<typeof twoInstances>[0] & { diagnostic: (message: string) => void }

/** Where the proxy listens and the two instances' `host:port`, as the deploy file's variables take them. */
export interface ProxyAddresses {
  PETSTORE_LISTEN: string
  PETSTORE_APP1: string
  PETSTORE_APP2: string
}

/** Starts the proxy (stopped after the test); resolves with its origin once it accepts connections. */
export type StartProxy = (t: T, addresses: ProxyAddresses) => Promise<{ origin: string; output: () => string }>

interface Outcome {
  what: string
  at: number
  status?: number
  error?: string
}

/** Loops sending requests one after another, two listing and two creating pets (or four listing), until `stop()`. */
function steadyStream(origin: string, key: string, options: { getsOnly?: boolean } = {}) {
  let running = true
  const outcomes: Outcome[] = []
  const loop = async (n: number) => {
    for (let i = 0; running; i++) {
      const post = n % 2 === 1 && !options.getsOnly
      const what = post ? `POST /v1/pets #${n}.${i}` : `GET /v1/pets #${n}.${i}`
      const headers = { authorization: `Bearer ${key}`, ...(post ? { 'idempotency-key': `stream-${n}-${i}` } : {}) }
      const init = post ? { method: 'POST', headers, body: { name: `Stream ${n}.${i}`, categoryId: 1 } } : { headers }
      await call(origin, post ? '/v1/pets' : '/v1/pets?limit=5', init).then(
        (a) =>
          outcomes.push({
            what,
            at: Date.now(),
            status: a.status,
            ...(a.status === (post ? 201 : 200) ? {} : { error: JSON.stringify(a.body) }),
          }),
        (error: Error) => outcomes.push({ what, at: Date.now(), error: error.message }),
      )
    }
  }
  const loops = Promise.all([0, 1, 2, 3].map(loop))
  return {
    outcomes,
    stop: async () => {
      running = false
      await loops
      return outcomes
    },
  }
}

/** The JSON lines an instance wrote on stdout (its log). */
const logLines = (i: Instance): Record<string, unknown>[] =>
  i.process
    .stdout()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>]
      } catch {
        return []
      }
    })

const hostPort = (i: Instance) => new URL(i.origin).host

/**
 * What happens to app1 once it is cut off its database (its /readyz answers 503, it still accepts connections):
 * `{ takenOut }`, the line a proxy with active health checks writes when it takes it out, after which no request
 * reaches it; `{ getsRetried: true }`, a proxy with passive checks only (open-source nginx) sends a GET that app1
 * answered 503 to app2 (a POST's 503 is the client's to retry, with its Idempotency-Key).
 */
type NotReady = { takenOut: RegExp } | { getsRetried: true }

export async function proxyBehaviour(t: T, startProxy: StartProxy, notReady: NotReady): Promise<void> {
  const { instances, key, env, databaseRelay } = await twoInstances(t)
  const [one, two] = instances as [Instance, Instance]
  const proxy = await startProxy(t, {
    PETSTORE_LISTEN: `127.0.0.1:${env.PROXY_PORT}`,
    PETSTORE_APP1: hostPort(one),
    PETSTORE_APP2: hostPort(two),
  })
  t.after(async () => closeAgents())
  const auth = { authorization: `Bearer ${key}` }
  await pollUntil(
    'the proxy forwards to the instances',
    async () =>
      (await call(proxy.origin, '/v1/pets', { headers: auth }).catch(() => undefined))?.status === 200
        ? true
        : undefined,
    30_000,
  )

  // /metrics is each instance's (they answer it on loopback), never the public door's, however the path is spelled.
  assert.equal((await call(one.origin, '/metrics')).status, 200)
  for (const path of [
    '/metrics',
    '/metrics/',
    '/%6Detrics',
    '/%6detrics',
    '//metrics',
    '/metrics?format=text',
    '/metrics/x',
  ]) {
    assertErrorBody(await call(proxy.origin, path), 'not_found', 404)
  }

  // The console is on each instance's own console port, never through the public door, however it is spelled.
  assert.equal((await call(one.consoleOrigin!, '/console/login')).status, 200)
  for (const path of ['/console', '/console/login', '/console/', '/%63onsole/login', '//console', '/CONSOLE/login'])
    assertErrorBody(await call(proxy.origin, path), 'not_found', 404)

  // The client's address reaches the service (TRUST_PROXY is the proxy's 127.0.0.1; the client connects from
  // 127.0.0.2), and what the client wrote in X-Forwarded-For does not.
  const userAgent = `deploy-test-${randomBytes(4).toString('hex')}`
  const forged = await call(proxy.origin, '/v1/pets', {
    from: '127.0.0.2',
    headers: { ...auth, 'user-agent': userAgent, 'x-forwarded-for': '203.0.113.7' },
  })
  assert.equal(forged.status, 200)
  const logged = await pollUntil(
    'the request in an instance log',
    async () => instances.flatMap(logLines).find((l) => l.userAgent === userAgent),
    10_000,
  )
  assert.equal(logged.client, '127.0.0.2', JSON.stringify(logged))

  // app1 cut off its database: no request fails for it.
  const from = proxy.output().length
  await databaseRelay.stop()
  await pollUntil('app1 not ready', async () => ((await readyStatus(one)) === 503 ? true : undefined), 30_000)
  if ('takenOut' in notReady)
    await pollUntil(
      'the proxy taking app1 out',
      async () => (notReady.takenOut.test(proxy.output().slice(from)) ? true : undefined),
      30_000,
    )
  const cutOff = steadyStream(proxy.origin, key, { getsOnly: 'getsRetried' in notReady })
  // Not a time but a number of requests: 16 answers give app1 its turn several times over (the proxy balances
  // them), and any one of them would show if the proxy still sent it requests.
  await pollUntil(
    '16 answers to the stream while app1 is cut off',
    async () => (cutOff.outcomes.length >= 16 ? true : undefined),
    30_000,
    20,
  )
  const cutOffOutcomes = await cutOff.stop()
  assert.deepEqual(
    cutOffOutcomes.filter((o) => o.error !== undefined),
    [],
    'a request got the answer of the instance without its database',
  )
  assert.ok(cutOffOutcomes.length >= 8, `only ${cutOffOutcomes.length} requests`)
  await databaseRelay.start()
  await untilReady(one)

  // A steady stream while the first instance stops (SIGTERM): what it had in flight is answered, the rest goes to
  // the other one.
  const stream = steadyStream(proxy.origin, key)
  await pollUntil(
    'both instances serving the stream',
    async () =>
      (await servedBy(one, 'GET', '/v1/pets')) > 3 && (await servedBy(two, 'GET', '/v1/pets')) > 3 ? true : undefined,
    30_000,
  )
  const stoppedAt = Date.now()
  assert.deepEqual(await one.process.stop(), { code: 0, signal: null })
  // The stream goes on until what is checked below has happened (answers from 1 s after the stop, a POST among
  // them), not for a fixed time.
  await pollUntil(
    'the stream answered through the other instance after the stop',
    async () => {
      const answered = stream.outcomes.filter((o) => o.at > stoppedAt + 1_000 && o.error === undefined)
      return answered.length >= 8 && answered.some((o) => o.what.startsWith('POST')) ? true : undefined
    },
    30_000,
    20,
  )
  const outcomes = await stream.stop()
  const failed = outcomes.filter((o) => o.error !== undefined)
  const after = outcomes.filter((o) => o.at > stoppedAt + 1_000 && o.error === undefined)
  t.diagnostic(
    `${outcomes.length} requests in the stream, ${failed.length} failed, ` +
      `${after.length} answered from 1 s after the stop`,
  )
  assert.ok(
    failed.length <= 1,
    `${failed.length} of ${outcomes.length} requests failed: ${JSON.stringify(failed.slice(0, 10))}\n` +
      `proxy: ${proxy.output().slice(-3000)}`,
  )
  // The stream went on through the other instance (a few hundred requests on an idle machine; the bound is loose).
  assert.ok(after.length >= 8, `only ${after.length} requests were answered from 1 s after the stop`)
  assert.ok(
    outcomes.some((o) => o.what.startsWith('POST') && o.at > stoppedAt),
    'no POST after the stop',
  )

  // None left: the proxy's own 503 in the Error shape, with Retry-After, for every method.
  assert.deepEqual(await two.process.stop(), { code: 0, signal: null })
  for (const init of [{ headers: auth }, { method: 'POST', headers: auth, body: { name: 'Late', categoryId: 1 } }]) {
    const answer: Answer = await call(proxy.origin, '/v1/pets', init)
    assertErrorBody(answer, 'service_unavailable', 503)
    assert.match(String(answer.headers['retry-after']), /^[1-9]\d*$/)
  }
}
