// `npm start` as a supervisor or a container runtime runs it: in a process group of its own, stopped by SIGTERM to
// npm's process or to the whole group. The server must get the signal, finish the request in flight, and exit
// cleanly within the drain time, leaving no process of the group behind (a shell between npm and node kept it).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import SQLite from 'better-sqlite3'
import { SHUTDOWN_GRACE_MS } from '../../src/main/server.js'
import { childEnv, runCli, tempDir } from '../helpers/cli.js'
import { freePort } from '../helpers/ports.js'
import { repoRoot } from '../helpers/root.js'
import { pollUntil } from '../helpers/within.js'

const ROOT = fileURLToPath(repoRoot)
// The whole key (the log names only its prefix, `ps_test_AbCd`, in the audit entry of its creation).
const KEY = /ps_test_[A-Za-z0-9_-]{43}/

interface Member {
  pid: number
  ppid: number
  argv: string[]
  environ: string[]
}

/** Every live process whose process group is `pgid` (from /proc; zombies count as gone). */
function group(pgid: number): Member[] {
  const members: Member[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after its last ')'.
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(pgrp) !== pgid || state === 'Z') continue
      const list = (file: string) =>
        readFileSync(`/proc/${name}/${file}`, 'utf8')
          .split('\0')
          .filter((s) => s !== '')
      members.push({ pid: Number(name), ppid: Number(ppid), argv: list('cmdline'), environ: list('environ') })
    } catch {
      // The process ended while we looked.
    }
  }
  return members
}

async function startNpm(t: { after: (fn: () => void) => void }) {
  const { dir } = tempDir(t, 'petstore-npm-start-')
  const port = await freePort()
  let messagesPort = await freePort()
  while (messagesPort === port) messagesPort = await freePort()
  const env = childEnv({
    HOST: '127.0.0.1',
    PORT: String(port),
    MESSAGES_PORT: String(messagesPort),
    DATABASE_URL: join(dir, 'data', 'petstore.db'),
  })
  // The database exists before the first start, as an operator makes it (`petstore migrate`): `serve` refuses a
  // DATABASE_URL that names no database (it creates only the default path, or with --create).
  assert.equal((await runCli(['migrate'], { DATABASE_URL: env.DATABASE_URL! })).code, 0)
  // detached: a process group of its own, led by npm, as a supervisor or `setsid npm start` runs it.
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...env, npm_config_update_notifier: 'false' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  npm.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  npm.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const pgid = npm.pid!
  t.after(() => {
    for (const member of group(pgid)) process.kill(member.pid, 'SIGKILL')
  })
  const base = `http://127.0.0.1:${port}`
  await pollUntil(
    'npm start serving (/readyz answering 200)',
    async () => {
      const status = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.status,
        () => 0,
      )
      if (status === 200) return true
      if (npm.exitCode !== null) assert.fail(`npm start exited before it served: ${output}`)
      return undefined
    },
    60_000,
  )
  return { npm, pgid, port, exited, output: () => output, database: env.DATABASE_URL! }
}

/** A POST whose headers are sent now and whose body only when `finish` is called: a request in flight. */
function requestInFlight(port: number, key: string) {
  const body = JSON.stringify({ name: 'Late', categoryId: 1 })
  const req = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/pets',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  })
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.on('error', reject)
  })
  req.write(body.slice(0, 5))
  req.flushHeaders()
  return { answered, finish: () => req.end(body.slice(5)) }
}

/**
 * Resolves once the server has taken the request in flight in hand: its key was authenticated (before the body is
 * read), which marks the key as used (`last_used_at`, written for its first use). The database's only key, never
 * used before.
 */
async function untilAuthenticated(database: string): Promise<void> {
  await pollUntil(
    'the server authenticating the request in flight (its key marked as used)',
    async () => {
      const db = new SQLite(database, { readonly: true, fileMustExist: true })
      try {
        const { used } = db.prepare('select count(*) as used from api_keys where last_used_at is not null').get() as {
          used: number
        }
        return used > 0 ? true : undefined
      } finally {
        db.close()
      }
    },
    20_000,
    20,
  )
}

async function waitUntilGone(pgid: number, withinMs: number): Promise<number> {
  const started = Date.now()
  while (group(pgid).length > 0) {
    if (Date.now() - started > withinMs)
      assert.fail(
        `still running ${withinMs} ms after the signal: ${JSON.stringify(group(pgid).map((m) => m.argv.join(' ')))}`,
      )
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return Date.now() - started
}

for (const target of ['npm', 'group'] as const) {
  const signalled = target === 'npm' ? "npm's process" : 'the process group'
  test(
    `SIGTERM to ${signalled}: the request in flight is answered, ` +
      'every process exits cleanly within the drain time',
    async (t) => {
      const { npm, pgid, port, exited, output, database } = await startNpm(t)
      const key = KEY.exec(output())?.[0]
      assert.ok(key, `no key printed at the first start: ${output()}`)

      // npm runs node itself: no shell in between, and node has the memory settings.
      const members = group(pgid)
      assert.equal(members.length, 2, JSON.stringify(members.map((m) => m.argv.join(' '))))
      const node = members.find((m) => m.pid !== pgid)!
      assert.equal(node.ppid, pgid, "node is npm's own child")
      assert.match(node.argv[0]!, /(^|\/)node$/, node.argv.join(' '))
      assert.deepEqual(node.argv.slice(1), [
        '--max-semi-space-size=4',
        '--max-old-space-size=128',
        'bin/petstore.js',
        'serve',
      ])
      assert.ok(node.environ.includes('MALLOC_ARENA_MAX=2'))

      const inFlight = requestInFlight(port, key)
      await untilAuthenticated(database)
      process.kill(target === 'npm' ? npm.pid! : -pgid, 'SIGTERM')
      // The body arrives after the signal (once the server says it is shutting down); it is draining and still answers.
      await pollUntil(
        'the server logging "shutting down"',
        async () => (/"msg":"shutting down"/.test(output()) ? true : undefined),
        20_000,
        20,
      )
      inFlight.finish()
      assert.equal(await inFlight.answered, 201, output())

      await waitUntilGone(pgid, SHUTDOWN_GRACE_MS)
      assert.deepEqual(await exited, { code: 0, signal: null }, output())
      assert.match(output(), /"msg":"shutting down"/)
      assert.doesNotMatch(output(), /exiting without finishing|killed by timeout/, output())
    },
  )
}
