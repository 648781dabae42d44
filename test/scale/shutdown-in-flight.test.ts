// A request in flight when SIGTERM arrives is answered in full, and the connection it came on, kept open by its
// client afterwards as connection pools do, does not hold the shutdown: the process still exits 0 (past its grace
// period close-with-grace would exit 1) and the pet is stored.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import SQLite from 'better-sqlite3'
import { tempDir } from '../helpers/cli.js'
import { accountKey, ROOMY, startInstance } from './support.js'

/** Resolves once nothing accepts connections on `port` any more (bounded polling: at most 10 s). */
async function listenerClosed(port: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const probe = connect(port, '127.0.0.1')
      probe.once('connect', () => (probe.destroy(), resolve(true)))
      probe.once('error', () => resolve(false))
    })
    if (!open) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`port ${port} still accepts connections`)
}

test(
  'a request in flight at SIGTERM is answered in full, ' + 'and its kept-alive connection does not hold the exit',
  async (t) => {
    const { file } = tempDir(t, 'petstore-shutdown-')
    const { key, accountId } = await accountKey(file, ROOMY)
    const { origin, process: server } = await startInstance(t, { DATABASE_URL: file })
    const port = Number(new URL(origin).port)

    // `Expect: 100-continue` pins the request in flight: its headers are in (the server said 100 Continue), its
    // body is not, when SIGTERM arrives. The client keeps the connection open afterwards, as pools do.
    const socket = connect(port, '127.0.0.1')
    t.after(() => void socket.destroy())
    let received = ''
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk))
    const until = (done: () => boolean) =>
      new Promise<void>((resolve, reject) => {
        const check = () => (done() ? (socket.off('data', check), resolve()) : undefined)
        socket
          .on('data', check)
          .once('close', () =>
            done() ? resolve() : reject(new Error(`connection closed after ${JSON.stringify(received)}`)),
          )
        check()
      })
    const body = JSON.stringify({ name: 'In flight', categoryId: 1 })
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    )
    await until(() => received.includes('\r\n\r\n'))
    assert.match(received, /^HTTP\/1\.1 100 Continue\r\n\r\n$/)

    const exit = server.stop()
    await listenerClosed(port)
    socket.write(body)
    const complete = () => {
      const m = /\r\n\r\nHTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(received)
      const length = m && /^content-length: (\d+)$/im.exec(m[2]!)
      return m !== null && length !== null && Buffer.byteLength(m[3]!) >= Number(length[1])
    }
    await until(complete)
    const [, status, , text] = /\r\n\r\nHTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(received)!
    assert.equal(status, '201', received)
    const pet = JSON.parse(text!) as { id: number; name: string }
    assert.equal(pet.name, 'In flight')

    // Past the grace period close-with-grace would exit 1; exit 0 means the open connection did not hold it.
    assert.deepEqual(await exit, { code: 0, signal: null }, server.stderr())
    const sqlite = new SQLite(file, { readonly: true })
    t.after(() => sqlite.close())
    const rows = sqlite.prepare('SELECT id, name FROM pets WHERE account_id = ?').all(accountId) as {
      id: bigint
      name: string
    }[]
    assert.deepEqual(
      rows.map((r) => [Number(r.id), r.name]),
      [[pet.id, 'In flight']],
    )
  },
)
