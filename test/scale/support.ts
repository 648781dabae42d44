// Shared by the scale-out tests: real `petstore serve` processes on distinct ports, accounts made by the real
// CLI, a Redis key prefix per test (its keys deleted afterwards), and the clock rule for exact-quota bursts.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { deleteRedisKeysAfter } from '../helpers/backend.js'
import { runCli } from '../helpers/cli.js'
import { freePort, spawnServe, type ServeProcess } from '../helpers/serve.js'

type After = { after: (fn: () => Promise<void>) => void }

const START_LINE = /Pet store API \(\w+\) at (http:\/\/\S+)\/v1\s/

/** `n` ports nobody listens on right now, all different. */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>()
  while (ports.size < n) ports.add(await freePort())
  return [...ports]
}

/** A Redis key prefix of its own for one test; every key under it is deleted after the test. */
export function redisPrefix(t: After): { url: string; prefix: string } {
  const url = process.env.TEST_REDIS_URL
  assert.ok(url, 'TEST_REDIS_URL is needed here')
  const prefix = `petstore-scale-test:${randomBytes(6).toString('hex')}:`
  deleteRedisKeysAfter(t, url, prefix)
  return { url, prefix }
}

export interface Instance {
  /** `http://127.0.0.1:PORT` (the API is under `/v1`). */
  origin: string
  process: ServeProcess
}

/** Starts `serve` (plus `args`) on two fresh ports with `env`; resolves once it prints its start line. */
export async function startInstance(t: After, env: Record<string, string>, args: string[] = []): Promise<Instance> {
  const [port, messagesPort] = await freePorts(2)
  const server = spawnServe(
    t,
    { HOST: '127.0.0.1', PORT: String(port), MESSAGES_PORT: String(messagesPort), LOG_LEVEL: 'warn', ...env },
    args,
  )
  const [, origin] = await server.waitFor(START_LINE, 30_000)
  assert.equal(origin, `http://127.0.0.1:${port}`)
  return { origin: origin!, process: server }
}

/** Creates an account with the real CLI on `databaseUrl` and one key for it; returns the key's secret. */
export async function accountKey(
  databaseUrl: string,
  plan: string[] = ['--plan', 'free'],
): Promise<{ accountId: string; key: string }> {
  const env = { DATABASE_URL: databaseUrl }
  const account = await runCli(['accounts', 'create', '--name', 'scale', ...plan, '--json'], env)
  assert.equal(account.code, 0, account.stderr)
  const accountId = (JSON.parse(account.stdout) as { id: string }).id
  const created = await runCli(['keys', 'create', '--account', accountId, '--json'], env)
  assert.equal(created.code, 0, created.stderr)
  return { accountId, key: (JSON.parse(created.stdout) as { key: string }).key }
}

/** An account whose quota no test here comes near. */
export const ROOMY = ['--plan', 'enterprise', '--per-minute', '100000', '--per-day', '1000000']

const minuteOf = (ms: number) => Math.floor(ms / 60_000)

/**
 * Runs `burst` and tells whether it stayed within one UTC minute (the servers run on this machine's clock, and
 * every request is counted between the two readings). A burst that straddles a minute boundary is legitimately
 * counted in two windows, so it proves nothing about one window's quota: the caller runs it again with a fresh
 * key; a burst takes far less than a minute, so the second one cannot straddle too (asserted).
 */
export async function withinOneMinute<T>(burst: () => Promise<T>): Promise<{ result: T; oneMinute: boolean }> {
  const before = Date.now()
  const result = await burst()
  const after = Date.now()
  assert.ok(after - before < 30_000, `the burst took ${after - before} ms`)
  return { result, oneMinute: minuteOf(before) === minuteOf(after) }
}

/** What the whole burst got back: status, parsed body, and the headers the tests look at. */
export interface Answer {
  status: number
  body: any
  replayed: string | null
}

export async function answer(response: Response): Promise<Answer> {
  const text = await response.text()
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/, `${response.status} ${text}`)
  return { status: response.status, body: JSON.parse(text), replayed: response.headers.get('idempotent-replayed') }
}

/** The same shape every non-2xx response has (docs/integrators/api.md, Errors). */
export function assertErrorBody(a: Answer, codes: string[]): void {
  assert.deepEqual(Object.keys(a.body).sort(), ['code', 'message', 'status'], JSON.stringify(a.body))
  assert.equal(a.body.status, a.status)
  assert.ok(codes.includes(a.body.code), `unexpected ${a.status} ${JSON.stringify(a.body)}`)
}

/** How many answers had each status, e.g. `{ 200: 60, 429: 240 }`: a failure shows every status at once. */
export const statusCounts = (answers: { status: number }[]) =>
  answers.reduce<Record<number, number>>((counts, a) => ({ ...counts, [a.status]: (counts[a.status] ?? 0) + 1 }), {})
