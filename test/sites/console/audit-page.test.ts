// /console/audit and /console/audit.csv: the audit log filtered by account, actor, action and UTC dates, newest
// first, paged with a `before` cursor; unusable filters get a 400 page that says which; the CSV export has every
// matching entry (more than one batch), as an attachment, safe to open in a spreadsheet. Entries come from real
// sign-ups, log-ins and changes through the accounts service.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { csvCell, CSV_BATCH } from '../../../src/sites/console/audit-csv.js'
import { testActor } from '../../helpers/actors.js'
import { consoleHarness, logIn, signedInOperator } from '../../helpers/console.js'
import { client, signedUpUser } from '../../helpers/portal.js'
import { tableRows } from '../../helpers/tables.js'

const T0 = Date.parse('2027-03-01T10:00:00Z')
const DAY = 86_400_000

/** The audit table's rows: [time, actor, address, action, account, target, changes]. */
const entries = (body: string) => (body.includes('<table class="audit">') ? tableRows(body, 'audit').slice(1) : [])
const query = (params: Record<string, string>) => `/console/audit?${new URLSearchParams(params)}`

/** RFC 4180 records (quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++
      else if (ch === '"') quoted = false
      else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') record.push(cell), (cell = '')
    else if (ch === '\r' && text[i + 1] === '\n')
      record.push(cell), records.push(record), (record = []), (cell = ''), i++
    else cell += ch
  }
  assert.equal(cell + record.join(''), '', 'the file ends with CRLF')
  return records
}

test('CSV cells that a spreadsheet would read as a formula get an apostrophe; quotes are doubled', () => {
  for (const start of ['=', '+', '-', '@', '\t', '\r'])
    assert.ok(csvCell(`${start}1+1`).replace(/^"/, '').startsWith(`'${start}`), JSON.stringify(start))
  assert.equal(csvCell('=HYPERLINK("http://evil.example","x")'), `"'=HYPERLINK(""http://evil.example"",""x"")"`)
  assert.equal(csvCell('a, b'), '"a, b"')
  assert.equal(csvCell('two\nlines'), '"two\nlines"')
  assert.equal(csvCell('plain 1-2'), 'plain 1-2')
  assert.equal(csvCell(null), '')
})

test('the audit page filters by account, actor, action and dates, and exports the same entries as CSV', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const admin = await signedInOperator(h, { role: 'admin', email: 'boss@ops.example' })
  const alpha = await h.newAccount({ name: 'Alpha, "the first"' })
  h.clock.advance(DAY)
  // An integrator whose address a spreadsheet would read as a formula.
  await signedUpUser(h, '+plus@example.com')
  h.clock.advance(DAY)
  const operatorActor = {
    kind: 'operator' as const,
    operatorId: admin.operator.id,
    email: admin.operator.email,
    address: '203.0.113.9',
  }
  await h.services.accounts.setPlan({ id: alpha.accountId, plan: 'pro', actor: operatorActor })
  await h.services.accounts.suspend({ accountId: alpha.accountId, reason: '=cmd|calc', actor: operatorActor })
  // Two days on, the admin's session has ended: it logs in again (another operator.login).
  const again = Object.assign(client(h.app), { operator: admin.operator })
  assert.equal((await logIn(again, admin.operator, admin.operator.codeAt(h.clock.now()))).statusCode, 303)

  const support = await signedInOperator(h, { role: 'support' })
  for (const reader of [again, support]) {
    const all = await reader.get('/console/audit')
    assert.equal(all.statusCode, 200)
    assert.match(all.body, /<caption id="audit-caption">Audit log entries, newest first<\/caption>/)
    const rows = entries(all.body)
    assert.deepEqual(
      rows.slice(0, 3).map((r) => r[3]),
      ['operator.login', 'operator.setup_completed', 'operator.created'],
      "newest first (the support operator's own)",
    )
    assert.ok(rows.some((r) => r[1] === '+plus@example.com (integrator)' && r[3] === 'account.created'))
    assert.ok(
      rows.some((r) => r[1] === 'boss@ops.example (operator)' && r[3] === 'operator.login' && r[2] === '127.0.0.1'),
      'a log-in shows its client address',
    )
  }

  // By account: its own entries only, changes shown before → after.
  const byAccount = entries((await again.get(query({ account: alpha.accountId }))).body)
  assert.deepEqual(
    byAccount.map((r) => [r[3], r[4]]),
    [
      ['account.suspended', alpha.accountId],
      ['account.plan_changed', alpha.accountId],
      ['key.created', alpha.accountId],
      ['account.created', alpha.accountId],
    ],
  )
  assert.equal(byAccount[1]![1], 'boss@ops.example (operator)')
  assert.equal(byAccount[1]![2], '203.0.113.9')
  assert.match(byAccount[1]![6]!, /plan: free → pro/)
  assert.equal(byAccount[3]![1], 'cli (user test)')
  // By actor: an email in any case, or cli.
  const byOperator = entries((await again.get(query({ actor: 'BOSS@ops.example' }))).body)
  assert.deepEqual(
    byOperator.map((r) => r[3]),
    ['operator.login', 'account.suspended', 'account.plan_changed', 'operator.login', 'operator.setup_completed'],
  )
  assert.ok(entries((await again.get(query({ actor: 'cli' }))).body).every((r) => r[1] === 'cli (user test)'))
  // By action, and by dates (UTC days, both included).
  assert.deepEqual(
    entries((await again.get(query({ action: 'account.plan_changed' }))).body).map((r) => r[4]),
    [alpha.accountId],
  )
  const secondDay = entries((await again.get(query({ from: '2027-03-02', to: '2027-03-02' }))).body)
  assert.ok(secondDay.length > 0 && secondDay.every((r) => r[0]!.startsWith('2027-03-02')), 'only the second day')
  assert.ok(secondDay.some((r) => r[1] === '+plus@example.com (integrator)'))
  assert.ok(entries((await again.get(query({ from: '2027-03-03' }))).body).every((r) => r[0]!.startsWith('2027-03-03')))
  const none = await again.get(query({ action: 'ban.lifted' }))
  assert.match(none.body, /No entry matches these filters\./)

  // The filters stay in the form and in the export link.
  const filtered = await again.get(
    query({ account: alpha.accountId, action: 'account.plan_changed', utm_source: 'mail' }),
  )
  assert.match(filtered.body, new RegExp(`<input type="text" id="f-account" name="account" value="${alpha.accountId}"`))
  assert.match(filtered.body, /<option value="account.plan_changed" selected>/)
  const exportForm =
    /<form method="get" action="\/console\/audit\.csv"[^>]*>(.*?)<button type="submit"[^>]*>Export CSV<\/button>/s.exec(
      filtered.body,
    )?.[1] ?? ''
  const exported = [...exportForm.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map(
    (m) => `${m[1]}=${m[2]}`,
  )
  assert.deepEqual(exported, [`account=${alpha.accountId}`, 'action=account.plan_changed'])

  const csv = await again.get(`/console/audit.csv?account=${alpha.accountId}`)
  assert.equal(csv.statusCode, 200)
  assert.match(String(csv.headers['content-type']), /^text\/csv; charset=utf-8/)
  assert.match(String(csv.headers['content-disposition']), /^attachment; filename="petstore-audit-2027-03-03\.csv"$/)
  const records = parseCsv(csv.body)
  assert.deepEqual(records[0], [
    'seq',
    'time',
    'actor',
    'actor kind',
    'actor id',
    'actor address',
    'action',
    'account',
    'target kind',
    'target id',
    'changes',
  ])
  assert.deepEqual(
    records.slice(1).map((r) => r[6]),
    ['account.suspended', 'account.plan_changed', 'key.created', 'account.created'],
  )
  assert.equal(records.at(-1)![9], alpha.accountId)
  assert.match(records.at(-1)![10]!, /^name: Alpha, "the first"; plan: free/, 'quotes and commas survive')
  assert.ok(csv.body.includes('"name: Alpha, ""the first""; plan: free'), 'quotes doubled in the file')
  assert.equal(records[1]![10], 'reason: =cmd|calc')

  const integratorCsv = parseCsv(
    (await again.get(`/console/audit.csv?actor=${encodeURIComponent('+plus@example.com')}`)).body,
  )
  assert.ok(integratorCsv.length > 1)
  for (const record of integratorCsv.slice(1))
    assert.equal(record[2], "'+plus@example.com (integrator)", 'a cell starting with + is not a formula')
})

test('unusable filters get a 400 page saying which, not a crash', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const operator = await signedInOperator(h, { role: 'support' })
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ action: 'account.exploded' }, /“Action” must be one of the listed actions/],
    [{ from: '2027-02-30' }, /“From” must be a date written YYYY-MM-DD/],
    [{ to: 'yesterday' }, /“To” must be a date written YYYY-MM-DD/],
    [{ from: '2027-03-02', to: '2027-03-01' }, /“From” must not be after “To”/],
    [{ actor: 'not an address' }, /“Actor” must be an email address/],
    [{ account: "acct_1' or 1=1" }, /“Account” must be an account id/],
    [{ before: 'abc' }, /The page link is not valid/],
    [{ before: '99999999999999999999' }, /The page link is not valid/],
  ]
  for (const [params, message] of cases) {
    for (const path of ['/console/audit', '/console/audit.csv']) {
      const page = await operator.get(`${path}?${new URLSearchParams(params)}`)
      if (path.endsWith('.csv') && params.before !== undefined) {
        assert.equal(page.statusCode, 200, 'the export ignores the page cursor')
        continue
      }
      assert.equal(page.statusCode, 400, `${path} ${JSON.stringify(params)}`)
      assert.match(page.headers['content-type'] as string, /^text\/html/)
      assert.match(page.body, message)
      assert.match(page.body, /<div class="notice notice-error" role="alert">/)
      assert.match(page.body, /<form method="get" action="\/console\/audit"/, 'the form, to correct the filter')
    }
  }
})

test('the audit page pages newest first with a Next page link; the CSV has every entry, past one batch', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const operator = await signedInOperator(h, { role: 'support' })
  for (let i = 0; i < CSV_BATCH + 20; i++)
    await h.services.audit.record(testActor, { action: 'ban.lifted', target: { kind: 'key', id: `key_${i}` } })
  const total = Number(
    (
      await h.handle.db
        .selectFrom('audit_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )
  assert.ok(total > CSV_BATCH + 20)

  const seen: string[] = []
  let path: string | undefined = '/console/audit'
  let pages = 0
  while (path !== undefined) {
    const page = await operator.get(path)
    assert.equal(page.statusCode, 200)
    const rows = entries(page.body)
    assert.ok(rows.length > 0 && rows.length <= 50)
    seen.push(...rows.map((r) => r[5]!))
    pages++
    path = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(page.body)?.[1]?.replace(/&amp;/g, '&')
    if (path !== undefined) assert.match(path, /^\/console\/audit\?before=\d+$/)
    if (pages > 1) assert.match(page.body, /<a href="\/console\/audit">First page<\/a>/)
  }
  assert.equal(pages, Math.ceil(total / 50))
  assert.equal(seen.length, total, 'every entry once')
  assert.equal(seen[0], `key key_${CSV_BATCH + 19}`, 'newest first')
  assert.equal(seen.filter((s) => s.startsWith('key key_')).length, CSV_BATCH + 20)
  assert.match((await operator.get('/console/audit?before=1')).body, /No older entries\./)

  const csv = parseCsv((await operator.get('/console/audit.csv')).body)
  assert.equal(csv.length, total + 1)
  const seqs = csv.slice(1).map((r) => Number(r[0]))
  assert.deepEqual(
    seqs,
    [...seqs].sort((a, b) => b - a),
    'newest first, no repeats',
  )
  assert.equal(new Set(seqs).size, total)

  const visitor = client(h.app)
  for (const url of ['/console/audit', '/console/audit.csv']) {
    const signedOut = await visitor.get(url)
    assert.equal(signedOut.statusCode, 303, url)
    assert.match(String(signedOut.headers.location), /^\/console\/login/)
  }
})
