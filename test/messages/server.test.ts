// `petstore serve --only messages` as a real process (issue 4): only the messages listener runs, at
// http://HOST:MESSAGES_PORT as printed; the printed key sends a message (202) that the built-in worker
// delivers to the log; the pet store port stays closed; SIGTERM exits 0.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import { join } from 'node:path'
import { test } from 'node:test'
import { BIN, childEnv, tempDir } from '../helpers/cli.js'
import { freePort, type Exit } from '../helpers/serve.js'

/** `node bin/petstore.js serve …args` with `env` only; killed after the test if still running. */
function serve(t: { after: (fn: () => Promise<void>) => void }, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  const waiting = new Set<() => void>()
  const notify = () => waiting.forEach((check) => check())
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((out += chunk), notify()))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((err += chunk), notify()))
  let running = true
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => ((running = false), notify(), resolve({ code, signal }))))
  t.after(async () => {
    if (running) {
      child.kill('SIGKILL')
      await exited
    }
  })
  /** Resolves with the first match on stdout; rejects if the process exits first or after 20 s (hang guard). */
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`timed out waiting for ${pattern}`)), 20_000)
      const check = () => {
        const match = pattern.exec(out)
        if (match) finish(undefined, match)
        else if (!running) finish(new Error(`exited before printing ${pattern}`))
      }
      const finish = (error?: Error, match?: RegExpMatchArray) => {
        clearTimeout(timer)
        waiting.delete(check)
        if (error) reject(new Error(`${error.message}\nstdout: ${out}\nstderr: ${err}`))
        else resolve(match!)
      }
      waiting.add(check)
      check()
    })
  const stop = async () => {
    child.kill('SIGTERM')
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no exit within 20 s of SIGTERM')), 20_000)))
    return Promise.race([exited, late]).finally(() => clearTimeout(timer))
  }
  return { stdout: () => out, stderr: () => err, waitFor, stop }
}

/** Whether anything accepts a TCP connection on 127.0.0.1:port. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.setTimeout(10_000, () => (socket.destroy(), reject(new Error(`no answer from port ${port}`))))
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNREFUSED' ? resolve(false) : reject(error)))
  })
}

test('serve --only messages: prints its base URL, the key works (202), the worker delivers, pets port closed, SIGTERM exits 0', async (t) => {
  const { dir } = tempDir(t, 'petstore-serve-messages-')
  const port = await freePort()
  let messagesPort = await freePort()
  while (messagesPort === port) messagesPort = await freePort()
  const server = serve(t, ['--only', 'messages'], {
    HOST: '127.0.0.1',
    PORT: String(port),
    MESSAGES_PORT: String(messagesPort),
    DATABASE_URL: join(dir, 'petstore.db'),
  })

  const [, base] = await server.waitFor(/Messages interface at (http:\/\/\S+)/)
  assert.equal(base, `http://127.0.0.1:${messagesPort}`)
  const [, key] = await server.waitFor(/^\s*(ps_test_\S+)\s*$/m)
  const [curl] = await server.waitFor(/^\s*curl .*$/m)
  assert.ok(curl.includes(`Bearer ${key}`) && curl.includes(`${base}/messages`), curl)
  assert.doesNotMatch(server.stdout(), /Pet store API/, 'the pet store is not announced')

  const response = await fetch(`${base}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Hello from the quickstart' }),
    signal: AbortSignal.timeout(10_000),
  })
  assert.equal(response.status, 202)
  const sent = (await response.json()) as { id: string; status: string }
  assert.equal(sent.status, 'queued')
  assert.equal(response.headers.get('location'), `/messages/${sent.id}`)

  // The worker runs inside the server: wait for its log line (event-driven, not a sleep), then look.
  await server.waitFor(new RegExp(`"messageId":"${sent.id}"[^\\n]*"message delivered"|"message delivered"[^\\n]*"messageId":"${sent.id}"`))
  const state = await fetch(`${base}/messages/${sent.id}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) })
  assert.equal(state.status, 200)
  assert.equal(((await state.json()) as { status: string }).status, 'delivered')

  assert.equal(await isListening(messagesPort), true)
  assert.equal(await isListening(port), false, `the pet store port ${port} is listening`)

  assert.deepEqual(await server.stop(), { code: 0, signal: null })
})
