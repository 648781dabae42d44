// SIGTERM while clients keep sending on kept-alive connections (a real `serve` process): every request is either
// answered in full or was never received (no byte of an answer, and its POST left no pet behind); a response
// finished after the signal says `Connection: close` and the server then closes that connection; nothing new is
// accepted; the process exits 0. A request the server received and acted on without answering would show as a pet
// in the database without its 201.
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { test } from 'node:test'
import SQLite from 'better-sqlite3'
import { tempDir } from '../helpers/cli.js'
import { accountKey, ROOMY, startInstance } from './support.js'

const CONNECTIONS = 8
const SIGNAL_AFTER = 200 // complete answers before SIGTERM

interface Outcome {
  name: string
  connection: number
  /** answered: the full response; unanswered: the connection closed (or was reset) before any byte of it. */
  kind: 'answered' | 'unanswered' | 'cut'
  status?: number
  closeHeader?: boolean
  afterSignal: boolean
  /** The request had been written out in full before the connection closed or was reset. */
  fullySent: boolean
  error?: string
}

/** One kept-alive connection sending POSTs back to back until the server closes it (or says it will). */
function client(
  port: number,
  key: string,
  connection: number,
  state: { signalled: boolean; onAnswer: () => void },
): Promise<Outcome[]> {
  return new Promise((resolve) => {
    const outcomes: Outcome[] = []
    const socket: Socket = connect(port, '127.0.0.1')
    let buffer = Buffer.alloc(0)
    let n = 0
    let current: { name: string; fullySent: boolean } | undefined
    let finished = false
    const finish = (error?: string) => {
      if (finished) return
      finished = true
      if (current) {
        const kind = buffer.length === 0 ? 'unanswered' : 'cut'
        outcomes.push({
          name: current.name,
          connection,
          kind,
          afterSignal: state.signalled,
          fullySent: current.fullySent,
          error,
        })
      }
      socket.destroy()
      resolve(outcomes)
    }
    const send = () => {
      const name = `C${connection}-${n++}`
      const body = JSON.stringify({ name, categoryId: 1 })
      current = { name, fullySent: false }
      const sent = current
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
          'Content-Type: application/json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        (error) => {
          if (!error) sent.fullySent = true
        },
      )
    }
    socket.on('connect', send)
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      const end = buffer.indexOf('\r\n\r\n')
      if (end < 0 || !current) return
      const head = buffer.subarray(0, end).toString('latin1')
      const length = Number(/^content-length: *(\d+)$/im.exec(head)?.[1] ?? 0)
      if (buffer.length < end + 4 + length) return
      const closeHeader = /^connection: *close$/im.test(head)
      outcomes.push({
        name: current.name,
        connection,
        kind: 'answered',
        status: Number(head.slice(9, 12)),
        closeHeader,
        afterSignal: state.signalled,
        fullySent: true,
      })
      buffer = buffer.subarray(end + 4 + length)
      current = undefined
      state.onAnswer()
      // A client honours `Connection: close`: it sends nothing more on this connection.
      if (closeHeader) socket.once('close', () => finish()) && socket.end()
      else send()
    })
    socket.on('error', (error: NodeJS.ErrnoException) => finish(error.code))
    socket.on('close', () => finish())
  })
}

test(
  'SIGTERM with requests streaming on kept-alive connections: ' +
    'each answered in full or never received, then Connection: close; exit 0',
  async (t) => {
    const { file } = tempDir(t, 'petstore-shutdown-')
    const { key, accountId } = await accountKey(file, ROOMY)
    const { origin, process: server } = await startInstance(t, { DATABASE_URL: file })
    const port = Number(new URL(origin).port)

    let answers = 0
    let exit: ReturnType<typeof server.stop> | undefined
    const state = {
      signalled: false,
      onAnswer: () => {
        if (++answers !== SIGNAL_AFTER) return
        state.signalled = true
        exit = server.stop()
        exit.catch(() => {})
      },
    }
    const outcomes = (
      await Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => client(port, key, i, state)))
    ).flat()
    assert.ok(exit, `only ${answers} answers before every connection ended`)
    assert.deepEqual(await exit, { code: 0, signal: null }, server.stderr())

    const sqlite = new SQLite(file, { readonly: true })
    t.after(() => sqlite.close())
    const stored = new Set(
      (sqlite.prepare('SELECT name FROM pets WHERE account_id = ?').all(accountId) as { name: string }[]).map(
        (r) => r.name,
      ),
    )

    assert.deepEqual(
      outcomes.filter((o) => o.kind === 'cut'),
      [],
      'a response cut off mid-way',
    )
    const answered = outcomes.filter((o) => o.kind === 'answered')
    assert.deepEqual(
      answered.filter((o) => o.status !== 201).map((o) => `${o.name}: ${o.status}`),
      [],
    )
    assert.deepEqual(
      answered.filter((o) => !stored.has(o.name)).map((o) => o.name),
      [],
      'a 201 whose pet is missing',
    )
    const unanswered = outcomes.filter((o) => o.kind === 'unanswered')
    assert.deepEqual(
      unanswered.filter((o) => stored.has(o.name)).map((o) => o.name),
      [],
      'received and acted on, but never answered',
    )
    assert.ok(
      unanswered.every((o) => o.afterSignal),
      'a request went unanswered before the signal',
    )
    // Every connection ended by the server saying so, after the signal: its last answer carried Connection: close,
    // or it was idle when the signal came and was closed without a request in it.
    const lastOf = new Map<number, Outcome>()
    for (const o of outcomes) lastOf.set(o.connection, o)
    const closedByHeader = [...lastOf.values()].filter((o) => o.kind === 'answered' && o.closeHeader).length
    assert.ok(closedByHeader >= 1, 'no response said Connection: close while draining')
    assert.ok(answered.filter((o) => o.closeHeader).every((o) => o.afterSignal))
    // Reset after the request was sent in full: before the fix 7 of 8 connections in one run out of two (their
    // answer had no Connection: close, the client sent the next request as the server closed the connection).
    const resetAfterSent = unanswered.filter((o) => o.fullySent).length
    t.diagnostic(
      `answered ${answered.length} (${answered.filter((o) => o.afterSignal).length} after the signal, ` +
        `${closedByHeader} with Connection: close as the last), ` +
        `unanswered ${unanswered.length} (${resetAfterSent} after being sent in full)`,
    )
    assert.equal(resetAfterSent, 0, `${resetAfterSent} requests sent in full and then reset`)

    // Nothing new is accepted once it has gone.
    await assert.rejects(
      new Promise((resolve, reject) => connect(port, '127.0.0.1').once('connect', resolve).once('error', reject)),
      /ECONNREFUSED/,
    )
  },
)
