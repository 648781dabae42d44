// `petstore serve --only messages` as a real process (issue 4): only the messages listener runs, at
// http://HOST:MESSAGES_PORT as printed; the printed key sends a message (202) that the built-in worker
// delivers to the log; the pet store port stays closed; SIGTERM exits 0.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { join } from 'node:path'
import { test } from 'node:test'
import { tempDir } from '../../helpers/cli.js'
import { freePort, spawnServe } from '../../helpers/serve.js'
import { pollUntil } from '../../helpers/within.js'

/** Whether anything accepts a TCP connection on 127.0.0.1:port. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.setTimeout(10_000, () => (socket.destroy(), reject(new Error(`no answer from port ${port}`))))
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' ? resolve(false) : reject(error),
    )
  })
}

test(
  'serve --only messages: prints its base URL, the key works (202), ' +
    'the worker delivers, pets port closed, SIGTERM exits 0',
  async (t) => {
    const { dir } = tempDir(t, 'petstore-serve-messages-')
    const port = await freePort()
    let messagesPort = await freePort()
    while (messagesPort === port) messagesPort = await freePort()
    const server = spawnServe(
      t,
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        MESSAGES_PORT: String(messagesPort),
        DATABASE_URL: join(dir, 'petstore.db'),
      },
      ['--only', 'messages'],
    )

    const [, base] = await server.waitFor(/Messages interface at (http:\/\/\S+)/)
    assert.equal(base, `http://127.0.0.1:${messagesPort}`)
    const [, key] = await server.waitFor(/^\s*(ps_test_\S+)\s*$/m)
    const [curl] = await server.waitFor(/^\s*curl .*$/m)
    assert.ok(curl.includes(`Bearer ${key}`) && curl.includes(`${base}/messages`), curl)
    assert.doesNotMatch(server.stderr(), /Pet store API/, 'the pet store is not announced')

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

    // The worker runs inside the server: wait for its log line (event-driven, not a sleep). That line is the
    // delivery itself, so the `delivered` status is committed just after it: look until it is there.
    await server.waitFor(
      new RegExp(
        `"messageId":"${sent.id}"[^\\n]*"message delivered"|"message delivered"[^\\n]*"messageId":"${sent.id}"`,
      ),
    )
    const status = async () => {
      const state = await fetch(`${base}/messages/${sent.id}`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(10_000),
      })
      assert.equal(state.status, 200)
      const { status } = (await state.json()) as { status: string }
      return status === 'delivered' ? status : undefined
    }
    assert.equal(await pollUntil('the message is marked delivered', status, 5_000, 20), 'delivered')

    assert.equal(await isListening(messagesPort), true)
    assert.equal(await isListening(port), false, `the pet store port ${port} is listening`)

    assert.deepEqual(await server.stop(), { code: 0, signal: null })
  },
)
