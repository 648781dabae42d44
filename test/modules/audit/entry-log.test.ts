// Each audit entry the service writes is also an info-level JSON log line (`"msg":"audit entry"`), the same fields
// `audit list --json` prints: what an operator ships elsewhere when the database's own guard is not enough (its
// owner can drop triggers). In-process against the real database, and from a real `petstore serve`.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { logAuditEntries } from '../../../src/modules/audit/audit.repository.js'
import type { AuditEvent } from '../../../src/modules/audit/audit-event.js'
import { captureLog } from '../../helpers/capture-log.js'
import { tempDir } from '../../helpers/cli.js'
import { consoleHarness, logIn, setUpOperator } from '../../helpers/console.js'
import { client } from '../../helpers/portal.js'
import { freePort, spawnServe } from '../../helpers/serve.js'

test('every entry is a log line with its seq, actor, address and changes, as stored; no password', async (t) => {
  const capture = captureLog()
  logAuditEntries(capture.log)
  t.after(() => logAuditEntries(undefined))
  const h = await consoleHarness(t)
  const op = await setUpOperator(h, { role: 'admin' })
  const wrong = 'a wrong password, typed'
  assert.equal((await logIn(client(h.app), { email: op.email, password: wrong }, '000000')).statusCode, 400)
  assert.equal((await logIn(client(h.app), { email: 'nobody@ops.example', password: wrong }, '000000')).statusCode, 400)
  assert.equal((await logIn(client(h.app), op, op.codeAt(h.clock.now() + 30_000))).statusCode, 303)

  const stored = await h.services.audit.list({ limit: 100 })
  const logged = capture.lines.filter((l) => l.msg === 'audit entry')
  assert.ok(
    logged.every((l) => l.level === 30),
    'info',
  )
  assert.deepEqual(
    logged.map((l) => (l as unknown as { audit: AuditEvent }).audit),
    [...stored].reverse(),
  )
  assert.deepEqual(stored.map((e) => e.action).reverse(), [
    'operator.created',
    'operator.setup_completed',
    'operator.login_failed',
    'operator.login_failed',
    'operator.login',
  ])
  assert.ok(!JSON.stringify(capture.lines).includes(wrong) && !JSON.stringify(capture.lines).includes(op.secret))
})

test(
  'petstore serve: the first start’s entries (the ' + 'local account and its key) are JSON lines on stdout',
  async (t) => {
    const { dir } = tempDir(t, 'petstore-audit-log-')
    const [port, messagesPort] = [await freePort(), await freePort()]
    const server = spawnServe(t, {
      HOST: '127.0.0.1',
      PORT: String(port),
      MESSAGES_PORT: String(messagesPort === port ? port + 1 : messagesPort),
      DATABASE_URL: join(dir, 'petstore.db'),
    })
    await server.waitFor(/"action":"key\.created".*"msg":"audit entry"/)
    // Started (its stop signal handled) once the banner is out.
    await server.waitFor(/at http:\/\/\S+\/v1\s/)
    assert.deepEqual(await server.stop(), { code: 0, signal: null })
    const entries = server
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"audit entry"'))
      .map((l) => JSON.parse(l) as { audit: AuditEvent })
    assert.deepEqual(
      entries.map((e) => [e.audit.action, e.audit.actor.kind]),
      [
        ['account.created', 'system'],
        ['key.created', 'system'],
      ],
    )
    const [key] = /ps_test_[A-Za-z0-9_-]{40,}/.exec(server.stderr())!
    assert.ok(!server.stdout().includes(key), 'never the key itself (shown once, on stderr)')
  },
)
