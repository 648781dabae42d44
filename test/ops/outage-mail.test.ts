// A mail server outage in the log: the portal's SMTP server behind a relay the test stops. Each mail not sent has
// one line with its reason (no stack); the outage itself is one warning when it starts and one line when a mail
// goes out again (ops/outage-log.ts).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startSmtpSink } from '../helpers/smtp-sink.js'
import { tcpProxy } from '../helpers/tcp-proxy.js'
import { client, GOOD_PASSWORD, portalHarness } from '../helpers/portal.js'

type Line = Record<string, unknown> & { level: number; msg: string }

test(
  'SMTP unreachable: one warning for the outage, a line without ' +
    'stack per mail not sent, one line when mail goes out again',
  async (t) => {
    const smtp = await startSmtpSink(t)
    const proxy = await tcpProxy(t, { host: '127.0.0.1', port: Number(new URL(smtp.url).port) })
    await proxy.start()
    const raw: string[] = []
    const logger = { level: 'info', stream: { write: (line: string) => void raw.push(line) } }
    const h = await portalHarness(t, { logger, env: { MAIL_URL: `smtp://127.0.0.1:${proxy.port}` } })
    const signUp = async (email: string) => {
      const c = client(h.app)
      await c.get('/portal/signup')
      assert.equal((await c.post('/portal/signup', { email, password: GOOD_PASSWORD })).statusCode, 200)
      await h.services.portal!.mailer.settled()
    }
    const lines = () => raw.map((l) => JSON.parse(l) as Line).filter((l) => l.msg !== 'request')

    await signUp('before@example.com')
    assert.equal(smtp.received.length, 1)
    assert.deepEqual(lines(), [])

    await proxy.stop()
    for (let i = 0; i < 4; i++) await signUp(`during${i}@example.com`)
    await proxy.start()
    await signUp('after@example.com')
    assert.equal(smtp.received.length, 2)

    const said = lines()
    assert.deepEqual(
      said.map((l) => [l.level, l.msg.replace(/: .*/, ': …'), l.failedCalls]),
      [
        [40, 'mail server unreachable: …', undefined],
        [40, 'portal mail not sent', undefined],
        [40, 'portal mail not sent', undefined],
        [40, 'portal mail not sent', undefined],
        [40, 'portal mail not sent', undefined],
        [30, 'mail server reachable again', 4],
      ],
    )
    assert.ok(
      said
        .filter((l) => l.msg === 'portal mail not sent')
        .every((l) => typeof l.reason === 'string' && l.err === undefined),
    )
    assert.ok(!raw.join('').includes('"stack"'), 'a stack trace in the log')
  },
)
