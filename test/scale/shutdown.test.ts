// SIGTERM while requests stream in: each request is either answered completely or refused before any response
// byte, none is cut off mid-response, the process exits 0 (so within its grace period: past it, it exits 1), and
// the database holds exactly the pets whose 201 reached a client: none lost, none created behind a lost answer.
//
// How fetch (undici) reports the cases, and how they are told apart here:
// - no connection at all: `fetch` rejects, `cause.code` ECONNREFUSED;
// - a connection closed or reset before its answer (a kept-alive one the server closes as the request goes out,
//   or a new one the kernel completed but the closing listener never accepted): `fetch` rejects too, with
//   UND_ERR_SOCKET ("other side closed") or ECONNRESET. Whether any byte of the answer had arrived is not in
//   the error: undici's diagnostics channels give the connection of each request, and its `bytesRead` when the
//   connection's previous answer ended and when this request failed;
// - cut off after the status line and headers: `fetch` has resolved, and reading the body throws ("terminated").
// A request whose answer was lost after the server acted on it would show as an extra pet in the database.
import assert from 'node:assert/strict'
import dc from 'node:diagnostics_channel'
import type { Socket } from 'node:net'
import { test } from 'node:test'
import SQLite from 'better-sqlite3'
import { tempDir } from '../helpers/cli.js'
import { accountKey, ROOMY, startInstance } from './support.js'

const LOOPS = 20
const PER_LOOP = 30
const SIGNAL_AFTER = 150 // complete answers before SIGTERM

type Outcome =
  | {
      kind: 'answered'
      status: number
      body: any
      name?: string
      startedBeforeSignal: boolean
      settledAfterSignal: boolean
    }
  | { kind: 'refused'; code: string; name?: string }
  | { kind: 'broken'; detail: string; name?: string }

const causeOf = (error: unknown): { code?: string } => {
  const cause = (error as { cause?: any }).cause
  // AggregateError (several addresses)
  if (cause?.code === undefined && Array.isArray(cause?.errors)) return cause.errors[0] ?? {}
  return cause ?? {}
}

/** Answer bytes that had arrived for the request each undici error belongs to (0: none). */
function watchAnswerBytes(t: { after: (fn: () => void) => void }): WeakMap<object, number> {
  const socketOf = new WeakMap<object, Socket>() // undici request → its connection
  const answeredUpTo = new WeakMap<Socket, number>() // connection → bytesRead when its last answer ended
  const bytesOfError = new WeakMap<object, number>()
  const handlers: [string, (message: any) => void][] = [
    ['undici:client:sendHeaders', ({ request, socket }) => socketOf.set(request, socket)],
    [
      'undici:request:trailers',
      ({ request }) => {
        const socket = socketOf.get(request)
        if (socket) answeredUpTo.set(socket, socket.bytesRead)
      },
    ],
    [
      'undici:request:error',
      ({ request, error }) => {
        const socket = socketOf.get(request) // none: it never got a connection
        bytesOfError.set(error, socket ? socket.bytesRead - (answeredUpTo.get(socket) ?? 0) : 0)
      },
    ],
  ]
  for (const [name, fn] of handlers) dc.subscribe(name, fn)
  t.after(() => handlers.forEach(([name, fn]) => dc.unsubscribe(name, fn)))
  return bytesOfError
}

test(
  'SIGTERM during a stream of requests: ' + 'complete answers or refused at connect, exit 0, every 201 is stored',
  async (t) => {
    const { file } = tempDir(t, 'petstore-shutdown-')
    const { key, accountId } = await accountKey(file, ROOMY)
    const { origin, process: server } = await startInstance(t, { DATABASE_URL: file })
    const answerBytes = watchAnswerBytes(t)

    let answered = 0
    let signalled = false
    let exit: ReturnType<typeof server.stop> | undefined
    const outcomes: Outcome[] = []

    async function one(loop: number, n: number): Promise<Outcome> {
      const fresh = loop % 2 === 1 // odd loops open a connection per request, even loops keep theirs alive
      const post = n % 2 === 0
      const name = post ? `L${loop}-${n}` : undefined
      const signalledAtStart = signalled
      let response: Response
      try {
        response = await fetch(`${origin}/v1/pets${post ? '' : '?limit=5'}`, {
          method: post ? 'POST' : 'GET',
          headers: {
            authorization: `Bearer ${key}`,
            ...(post ? { 'content-type': 'application/json' } : {}),
            ...(fresh ? { connection: 'close' } : {}),
          },
          body: post ? JSON.stringify({ name, categoryId: loop + 1 }) : undefined,
          signal: AbortSignal.timeout(30_000),
        })
      } catch (error) {
        const cause = causeOf(error)
        const bytes = answerBytes.get(cause)
        if (['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(cause.code!) && bytes === 0)
          return { kind: 'refused', code: cause.code!, name }
        return {
          kind: 'broken',
          detail: `no response: ${String(error)} (${cause.code}, ${bytes} bytes of the answer had arrived)`,
          name,
        }
      }
      let text: string
      try {
        text = await response.text()
      } catch (error) {
        return {
          kind: 'broken',
          detail: `${response.status} cut off mid-body: ${String(error)} (${causeOf(error).code})`,
          name,
        }
      }
      try {
        return {
          kind: 'answered',
          status: response.status,
          body: JSON.parse(text),
          name,
          startedBeforeSignal: !signalledAtStart,
          settledAfterSignal: signalled,
        }
      } catch {
        return {
          kind: 'broken',
          detail: `${response.status} with a body that is not JSON: ${JSON.stringify(text)}`,
          name,
        }
      }
    }

    await Promise.all(
      Array.from({ length: LOOPS }, async (_, loop) => {
        for (let n = 0; n < PER_LOOP; n++) {
          const outcome = await one(loop, n)
          outcomes.push(outcome)
          if (outcome.kind === 'answered' && ++answered === SIGNAL_AFTER) {
            signalled = true
            exit = server.stop()
            exit.catch(() => {}) // awaited below, once the stream has ended
          }
        }
      }),
    )
    assert.ok(exit, `only ${answered} requests were answered before the stream ended`)
    assert.deepEqual(await exit, { code: 0, signal: null }, server.stderr())

    assert.deepEqual(
      outcomes.filter((o) => o.kind === 'broken'),
      [],
    )
    const answers = outcomes.filter((o) => o.kind === 'answered')
    for (const a of answers) {
      if (a.status < 300) continue
      // Whatever the service answers while it drains is one of its own Error bodies.
      assert.deepEqual(
        Object.keys(a.body).sort(),
        ['code', 'message', 'status'],
        `${a.status} ${JSON.stringify(a.body)}`,
      )
      assert.equal(a.body.status, a.status)
    }
    assert.deepEqual(
      answers
        .filter((a) => a.status !== 200 && a.status !== 201 && a.status !== 503)
        .map((a) => `${a.status} ${JSON.stringify(a.body)}`),
      [],
    )
    // The signal came in the middle of the stream: requests sent before it were answered after it, and later
    // ones found no listener.
    assert.ok(
      answers.some((a) => a.startedBeforeSignal && a.settledAfterSignal),
      'no request was in flight at SIGTERM',
    )
    assert.ok(
      outcomes.some((o) => o.kind === 'refused' && o.code === 'ECONNREFUSED'),
      'no request came after the listener closed',
    )

    // Exactly the pets whose 201 a client received are in the database, with the ids they were given.
    const created = new Map(answers.filter((a) => a.status === 201).map((a) => [a.name!, Number(a.body.id)]))
    // Loops alternate POST and GET, and every answer before the signal is a 200 or 201.
    assert.ok(created.size >= (SIGNAL_AFTER - LOOPS) / 2, `only ${created.size} pets created`)
    const sqlite = new SQLite(file, { readonly: true })
    t.after(() => sqlite.close())
    const rows = sqlite.prepare('SELECT id, name FROM pets WHERE account_id = ? ORDER BY id').all(accountId) as {
      id: number
      name: string
    }[]
    assert.deepEqual(new Map(rows.map((r) => [r.name, Number(r.id)])), created)
  },
)
