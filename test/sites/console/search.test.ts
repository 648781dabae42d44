// /console/accounts: finding an account by email (or part of it, any case), name (or part), account id, key id,
// a key's prefix as pasted from a log (shorter, exact, longer, with the listing's ellipsis), and a whole secret,
// which is found through its hash and appears nowhere: not in the page, not in the log. LIKE's wildcards in the
// input are plain characters. Through HTTP with signed-in operators of both roles; the accounts are real sign-ups.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { displayPrefix, keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { testActor } from '../../helpers/actors.js'
import { consoleHarness, signedInOperator } from '../../helpers/console.js'
import { client, signedUpUser } from '../../helpers/portal.js'
import { tableRows } from '../../helpers/tables.js'

const accountIdOf = async (h: Awaited<ReturnType<typeof consoleHarness>>, email: string) =>
  (
    await h.handle.db
      .selectFrom('portal_users')
      .select('account_id')
      .where('email_key', '=', email.toLowerCase())
      .executeTakeFirstOrThrow()
  ).account_id

/** Each result row: [account id, name, email, plan, state, created, matched by]. */
const results = (body: string) =>
  body.includes('<table class="search-results">') ? tableRows(body, 'search-results').slice(1) : []

test(
  'an operator finds accounts by email, name, account id, ' + 'key id, key prefix and whole secret, and is told why',
  async (t) => {
    const lines: string[] = []
    const h = await consoleHarness(t, {
      logger: { level: 'trace', stream: { write: (line: string) => void lines.push(line) } },
    })
    await signedUpUser(h, 'Jane.Doe@example.com')
    await signedUpUser(h, 'a_b@example.com')
    await signedUpUser(h, 'axb@example.com')
    await signedUpUser(h, 'fifty%off@example.com')
    const jane = await accountIdOf(h, 'jane.doe@example.com')
    const underscore = await accountIdOf(h, 'a_b@example.com')
    const percent = await accountIdOf(h, 'fifty%off@example.com')
    const acme = await h.newAccount({ name: 'Acme Widgets Ltd', plan: 'pro' })
    const ci = await h.services.accounts.createApiKey({
      accountId: jane,
      environment: keyEnvironment(h.config.environment),
      name: 'CI',
      actor: testActor,
    })
    const gone = await h.newAccount({ name: 'Gone soon' })
    await h.services.accounts.deleteAccount(gone.accountId, { actor: testActor })
    await h.services.accounts.suspend({ accountId: acme.accountId, reason: 'abuse', actor: testActor })

    for (const role of ['support', 'admin'] as const) {
      const operator = await signedInOperator(h, { role })
      const search = async (q: string) => {
        const page = await operator.post('/console/accounts', { q })
        assert.equal(page.statusCode, 200, page.body)
        return page
      }

      const prompt = await operator.get('/console/accounts')
      assert.equal(prompt.statusCode, 200)
      assert.match(prompt.body, /<label for="q">Search<\/label>/)
      assert.match(
        prompt.body,
        /<form method="post" action="\/console\/accounts"[^>]*role="search">/,
        'the form posts: a pasted secret stays out of URLs',
      )
      assert.match(prompt.body, /Type what you have in the Search field/)

      // Email: whole (any case), or a part of it.
      const byEmail = results((await search('JANE.DOE@example.COM')).body)
      assert.deepEqual(
        byEmail.map((r) => [r[0], r[2], r[3], r[4], r[6]]),
        [[jane, 'Jane.Doe@example.com', 'free', 'active', 'email; account name']],
      )
      assert.deepEqual(
        results((await search('doe@EXA')).body).map((r) => [r[0], r[6]]),
        [[jane, 'part of the email; part of the account name']],
      )
      // `_` and `%` are the characters themselves, not LIKE's wildcards.
      assert.deepEqual(
        results((await search('a_b')).body).map((r) => r[0]),
        [underscore],
      )
      assert.deepEqual(
        results((await search('%')).body).map((r) => r[0]),
        [percent],
      )
      // Name (part), with the account's state and plan.
      assert.deepEqual(
        results((await search('widgets')).body).map((r) => [r[0], r[1], r[3], r[4], r[6]]),
        [[acme.accountId, 'Acme Widgets Ltd', 'pro', 'suspended', 'part of the account name']],
      )
      // Account id; a deleted account is found and says so.
      assert.deepEqual(
        results((await search(gone.accountId)).body).map((r) => [r[0], r[4], r[6]]),
        [[gone.accountId, 'deleted', 'account id']],
      )
      // Key id.
      assert.deepEqual(
        results((await search(ci.id)).body).map((r) => [r[0], r[6]]),
        [[jane, `key id ${ci.id}`]],
      )
      // A key's prefix: as listed, copied with the listing's ellipsis, shorter, or a longer paste from a log.
      const prefix = displayPrefix(ci.key)
      for (const q of [prefix, `${prefix}…`, ci.key.slice(0, 20)]) {
        assert.deepEqual(
          results((await search(q)).body).map((r) => [r[0], r[6]]),
          [[jane, `key prefix ${prefix}… (key ${ci.id})`]],
          q,
        )
      }
      assert.ok(
        results((await search(ci.key.slice(0, 10))).body).some((r) => r[0] === jane && r[6]!.includes(ci.id)),
        'a shorter prefix',
      )
      assert.ok(
        !(await search(ci.key.slice(0, 20))).body.includes(ci.key.slice(0, 13)),
        'a longer paste is shown back only as its prefix',
      )

      // A whole secret finds its key through its hash, and is shown back only as its prefix.
      const bySecret = await search(ci.key)
      assert.deepEqual(
        results(bySecret.body).map((r) => [r[0], r[6]]),
        [[jane, `whole secret of key ${ci.id}`]],
      )
      assert.ok(!bySecret.body.includes(ci.key.slice(0, 13)), 'the secret is not in the page (nor in the field)')
      assert.match(bySecret.body, /<input type="text" id="q" name="q" value=""/)
      // A link with ?q= works too, for ordinary searches and secrets alike.
      const linked = await operator.get(`/console/accounts?q=${encodeURIComponent(ci.key)}`)
      assert.deepEqual(
        results(linked.body).map((r) => r[0]),
        [jane],
      )
      assert.ok(!linked.body.includes(ci.key.slice(0, 13)))
      // A secret that is not a key's: one with a key's prefix finds that key by its prefix only (a leaked secret
      // that was rolled since), another finds nothing; neither is shown back.
      const altered = `${ci.key.slice(0, -4)}AAAA`
      assert.deepEqual(
        results((await search(altered)).body).map((r) => [r[0], r[6]]),
        [[jane, `key prefix ${prefix}… (key ${ci.id})`]],
      )
      const unknownSecret = `ps_test_-_-_${ci.key.slice(12)}`
      const unknown = await search(unknownSecret)
      assert.deepEqual(results(unknown.body), [])
      assert.match(unknown.body, /No account matches “ps_test_-_-_…”/)
      assert.ok(!unknown.body.includes(unknownSecret.slice(0, 13)))

      assert.match((await search('nobody-has-this')).body, /No account matches “nobody-has-this”/)
      const tooLong = await operator.post('/console/accounts', { q: 'x'.repeat(401) })
      assert.equal(tooLong.statusCode, 400)
      assert.match(tooLong.body, /Search for at most 400 characters/)
    }

    const log = lines.join('\n')
    assert.ok(
      lines.some((l) => l.includes('/console/accounts')),
      'the searches were logged',
    )
    assert.ok(!log.includes(ci.key.slice(0, 13)), 'no part of the secret beyond its prefix is in the log')
    assert.ok(!log.includes(ci.key.slice(12, 40)), 'nor its body')
  },
)

test('a search returns at most 50 accounts and says there are more; signed out, it has nothing to show', async (t) => {
  const h = await consoleHarness(t)
  for (let i = 0; i < 52; i++)
    await h.services.accounts.createAccount({ name: `Bulk ${i}`, plan: 'free', actor: testActor })
  const operator = await signedInOperator(h, { role: 'support' })
  const page = await operator.post('/console/accounts', { q: 'bulk' })
  assert.equal(results(page.body).length, 50)
  assert.match(page.body, /The first 50 accounts matching “bulk”/)
  assert.match(page.body, /There are more matches/)

  const visitor = client(h.app)
  const signedOut = await visitor.get('/console/accounts?q=bulk')
  assert.equal(signedOut.statusCode, 303)
  assert.match(String(signedOut.headers.location), /^\/console\/login/)
  const posted = await visitor.post('/console/accounts', { q: 'bulk' })
  assert.notEqual(posted.statusCode, 200)
  assert.ok(!posted.body.includes('Bulk 1'))
})
