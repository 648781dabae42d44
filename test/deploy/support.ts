// Shared by the proxy tests: the instances' environment as compose.yaml gives it, two real `petstore serve`
// instances on a fresh PostgreSQL schema and Redis prefix, a client that talks HTTP from a chosen local address,
// and the Error body every answer must have.
import { randomBytes } from 'node:crypto'
import assert from 'node:assert/strict'
import { spawnSync, type ChildProcessByStdio } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'
import type { Readable } from 'node:stream'
import { parse } from 'yaml'
import { postgresSchema } from '../helpers/backend.js'
import { runCli } from '../helpers/cli.js'
import { spawnServe, type ServeProcess } from '../helpers/serve.js'
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'
import { pollUntil } from '../helpers/within.js'
import { repoRoot } from '../helpers/root.js'
import { freePorts, redisPrefix } from '../scale/support.js'

type T = Parameters<typeof postgresSchema>[0]

const ROOT = fileURLToPath(repoRoot)
export const deployFile = (name: string) => `${ROOT}${name}`

/** compose.yaml, parsed (its `<<` merge keys and anchors resolved). */
export function compose(): any {
  return parse(readFileSync(deployFile('compose.yaml'), 'utf8'), { merge: true })
}

/**
 * The settings that say where things are (addresses, ports, the database and Redis, the proxy's address, the
 * public URL, the Redis prefix a test keeps to itself): the only ones a test run gives its own values.
 */
export const ADDRESS_SETTINGS = [
  'HOST',
  'PORT',
  'MESSAGES_PORT',
  'DATABASE_URL',
  'REDIS_URL',
  'REDIS_PREFIX',
  'TRUST_PROXY',
  'PETSTORE_PUBLIC_URL',
  'CONSOLE_PORT',
  'CONSOLE_HOST',
  'CONSOLE_PUBLIC_URL',
] as const

/** The instances' environment in compose.yaml (`x-petstore-env`, used by app1 and app2). */
/** Settings compose.yaml takes from its own environment (`${NAME:?…}`): each test gives them a value of its own. */
export const GIVEN_SETTINGS = ['PETSTORE_SECRETS_KEY'] as const

export function composeInstanceEnv(): Record<string, string> {
  return compose()['x-petstore-env'] as Record<string, string>
}

/** A program's path if it is installed (PATH, or the sbin folders a non-root PATH may lack), else undefined. */
export function installed(program: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin']) {
    const path = `${dir}/${program}`
    if (dir && spawnSync(path, ['-v'], { stdio: 'ignore' }).error === undefined) return path
  }
  return undefined
}

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: any
}

const agents = new Map<string, Agent>()
/** A keep-alive agent per local address, as a browser or SDK keeps its connections to the proxy. */
const agentFrom = (localAddress: string) =>
  agents.get(localAddress) ?? agents.set(localAddress, new Agent({ keepAlive: true, localAddress })).get(localAddress)!
export function closeAgents(): void {
  agents.forEach((a) => a.destroy())
  agents.clear()
}

/** One HTTP request to `origin` from `localAddress` (any 127.x address works on loopback); JSON bodies parsed. */
export function call(
  origin: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; from?: string } = {},
): Promise<Answer> {
  const body = init.body === undefined ? undefined : JSON.stringify(init.body)
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}${path}`,
      {
        method: init.method ?? 'GET',
        agent: agentFrom(init.from ?? '127.0.0.1'),
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...init.headers },
        timeout: 15_000,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
        res.on('end', () => {
          const json = /^application\/json/.test(res.headers['content-type'] ?? '')
          resolve({ status: res.statusCode!, headers: res.headers, body: json ? JSON.parse(text) : text })
        })
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')))
    req.on('error', reject)
    req.end(body)
  })
}

/** The project's Error body, `{code, message, status}` with the answer's own status. */
export function assertErrorBody(a: Answer, code: string, status: number): void {
  assert.equal(a.status, status, JSON.stringify(a.body))
  assert.match(String(a.headers['content-type']), /^application\/json/)
  assert.deepEqual(Object.keys(a.body).sort(), ['code', 'message', 'status'], JSON.stringify(a.body))
  assert.equal(a.body.code, code)
  assert.equal(a.body.status, status)
  assert.equal(typeof a.body.message, 'string')
}

export interface Instance {
  origin: string
  /** Its console's own listener (CONSOLE_PORT, as compose.yaml runs it). */
  consoleOrigin?: string
  process: ServeProcess
}

/**
 * Two instances with compose.yaml's environment, where only the addresses are this run's: a fresh schema and Redis
 * prefix, ports of their own, and TRUST_PROXY set to 127.0.0.1, the address the proxy connects from. Resolves when
 * both are ready, with a key of a roomy account (made by the real CLI in the same environment). The first one
 * reaches PostgreSQL through `databaseRelay`, which a test may cut.
 */
export async function twoInstances(
  t: T,
): Promise<{ instances: Instance[]; key: string; env: Record<string, string>; databaseRelay: TcpProxy }> {
  const databaseUrl = await postgresSchema(t)
  const redis = redisPrefix(t)
  const [proxyPort, ...ports] = await freePorts(7)
  const database = new URL(databaseUrl)
  const databaseRelay = await tcpProxy(t, { host: database.hostname, port: Number(database.port || 5432) })
  await databaseRelay.start()
  const relayed = Object.assign(new URL(databaseUrl), {
    hostname: '127.0.0.1',
    port: String(databaseRelay.port),
  }).toString()
  const shared = {
    ...composeInstanceEnv(),
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    TRUST_PROXY: '127.0.0.1',
    HOST: '127.0.0.1',
    CONSOLE_HOST: '127.0.0.1',
    PETSTORE_SECRETS_KEY: randomBytes(32).toString('base64'),
  }
  // As compose.yaml does: migrations once, then both instances at once.
  const migrated = await runCli(['migrate'], shared)
  assert.equal(migrated.code, 0, migrated.stderr)
  const instances = await Promise.all(
    [0, 1].map(async (n) => {
      const port = ports[2 * n]!
      const env = {
        ...shared,
        ...(n === 0 ? { DATABASE_URL: relayed } : {}),
        PORT: String(port),
        MESSAGES_PORT: String(ports[2 * n + 1]),
        CONSOLE_PORT: String(ports[4 + n]),
        CONSOLE_PUBLIC_URL: `http://127.0.0.1:${ports[4 + n]}`,
        PETSTORE_PUBLIC_URL: `http://127.0.0.1:${proxyPort}`,
      }
      const instance = {
        origin: `http://127.0.0.1:${port}`,
        consoleOrigin: `http://127.0.0.1:${ports[4 + n]}`,
        process: spawnServe(t, env),
      }
      await untilReady(instance)
      return instance
    }),
  )
  const cli = (args: string[]) => runCli([...args, '--json'], shared)
  const account = await cli([
    'accounts',
    'create',
    '--name',
    'deploy',
    '--plan',
    'enterprise',
    '--per-minute',
    '100000',
    '--per-day',
    '1000000',
  ])
  assert.equal(account.code, 0, account.stderr)
  const created = await cli(['keys', 'create', '--account', JSON.parse(account.stdout).id])
  assert.equal(created.code, 0, created.stderr)
  const key = JSON.parse(created.stdout).key as string
  assert.match(key, /^ps_live_/, 'compose runs the production environment')
  return { instances, key, env: { ...shared, PROXY_PORT: String(proxyPort) }, databaseRelay }
}

/**
 * Resolves when the instance's /readyz answers 200; rejects at once, with what it printed, if it exits first.
 * Start-up takes well under 2 s on an idle machine and more than 20 s on this shared one under load: the bound only
 * catches hangs.
 */
export async function untilReady(i: Instance): Promise<void> {
  const exited = i.process.exited.then((exit) =>
    Promise.reject(
      new Error(`the instance exited (${JSON.stringify(exit)}) before it was ready\n${i.process.stderr()}`),
    ),
  )
  // Handled here too: it also rejects when the instance is stopped later on purpose.
  exited.catch(() => {})
  await Promise.race([
    exited,
    pollUntil(`${i.origin} ready`, () => readyStatus(i).then((s) => (s === 200 ? true : undefined)), 90_000),
  ])
}

/** The status /readyz answers (only the status: its body is not this test's business), 0 if nothing answers. */
export const readyStatus = (i: Instance) =>
  fetch(`${i.origin}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.arrayBuffer().then(() => r.status),
    () => 0,
  )

/** Requests of `pathOf` answered by `instance`, read from its own /metrics (loopback may read it directly). */
export async function servedBy(instance: Instance, method: string, route: string): Promise<number> {
  const text = await fetch(`${instance.origin}/metrics`).then((r) => r.text())
  const pattern = /^petstore_http_request_duration_seconds_count\{([^}]*)\} (\d+)/gm
  let total = 0
  for (const m of text.matchAll(pattern)) {
    if (m[1]!.includes(`method="${method}"`) && m[1]!.includes(`route="${route}"`) && m[1]!.includes('listener="pets"'))
      total += Number(m[2])
  }
  return total
}

/**
 * A proxy process the test started (haproxy, nginx): its output kept for failure messages, stopped with SIGTERM
 * after the test (the nginx master then stops its workers too), ready once it answers `/healthz` on `listen`.
 */
export async function runningProxy(
  t: T,
  child: ChildProcessByStdio<null, Readable, Readable>,
  name: string,
  listen: string,
): Promise<{ origin: string; output: () => string }> {
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s))
  child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s))
  const exited = new Promise((resolve) => child.once('close', resolve))
  t.after(async () => {
    child.kill('SIGTERM')
    await exited
  })
  const origin = `http://${listen}`
  await pollUntil(`${name} listening (${output})`, () =>
    call(origin, '/healthz').then(
      () => true,
      () => (child.exitCode === null ? undefined : Promise.reject(new Error(output))),
    ),
  )
  return { origin, output: () => output }
}
