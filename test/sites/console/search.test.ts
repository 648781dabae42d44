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
  'an operator finds accounts by email, name, account id, key id, key prefix and whole secret, is told why, ' +
    'and one match opens its page',
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
      /**
       * A search as the operator's browser sees it: the results page, or, for a single match, the page it opened
       * (followed; `opened` is its address).
       */
      const search = async (q: string, via: 'post' | 'get' = 'post') => {
        const sent =
          via === 'post'
            ? await operator.post('/console/accounts', { q })
            : await operator.get(`/console/accounts?q=${encodeURIComponent(q)}`)
        if (sent.statusCode !== 303) {
          assert.equal(sent.statusCode, 200, sent.body)
          return { body: sent.body, opened: undefined }
        }
        const opened = String(sent.headers.location)
        const page = await operator.get(opened)
        assert.equal(page.statusCode, 200, page.body)
        return { body: page.body, opened }
      }
      /** [account id, why it matched]: each row of a results page, or the one account a search opened. */
      const matches = async (q: string, via: 'post' | 'get' = 'post') => {
        const { body, opened } = await search(q, via)
        if (!opened) return results(body).map((r) => [r[0], r[6]])
        const id = decodeURIComponent(/^\/console\/accounts\/([^/?]+)\?found=/.exec(opened)![1]!)
        const why = /The only account your search matched, by (.*?)\.<\/div>/.exec(body)?.[1]
        return [[id, why?.replace(/&#39;/g, "'")]]
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

      // One match opens its page, which says why it matched; nothing typed is in its address.
      const byEmail = await search('JANE.DOE@example.COM')
      assert.equal(byEmail.opened, `/console/accounts/${jane}?found=email,name`)
      assert.match(byEmail.body, /Jane\.Doe@example\.com/)
      assert.deepEqual(await matches('JANE.DOE@example.COM'), [[jane, "its owner's email and its name"]])
      assert.deepEqual(await matches('doe@EXA'), [[jane, "part of its owner's email and part of its name"]])
      // `_` and `%` are the characters themselves, not LIKE's wildcards.
      assert.deepEqual(await matches('a_b'), [[underscore, "part of its owner's email and part of its name"]])
      assert.deepEqual(await matches('%'), [[percent, "part of its owner's email and part of its name"]])
      // Several matches: the table, each row saying why.
      const several = results((await search('example')).body)
      assert.ok(several.length >= 4, 'every sign-up matches')
      assert.ok(several.every((r) => r[6] === 'part of the email; part of the account name'))
      // Name (part), with the account's state and plan.
      const acmePage = await search('widgets')
      assert.equal(acmePage.opened, `/console/accounts/${acme.accountId}?found=part-name`)
      assert.match(acmePage.body, /Acme Widgets Ltd/)
      assert.match(acmePage.body, /<strong>Suspended<\/strong>/)
      assert.match(acmePage.body, /pro: /)
      // Account id; a deleted account is found and says so.
      const gonePage = await search(gone.accountId)
      assert.equal(gonePage.opened, `/console/accounts/${gone.accountId}?found=account-id`)
      assert.match(gonePage.body, /<strong>Deleted<\/strong>/)
      // Key id.
      assert.deepEqual(await matches(ci.id), [[jane, 'the id of one of its keys']])
      // A key's prefix: as listed, copied with the listing's ellipsis, shorter, or a longer paste from a log.
      const prefix = displayPrefix(ci.key)
      for (const q of [prefix, `${prefix}…`, ci.key.slice(0, 20)])
        assert.deepEqual(await matches(q), [[jane, 'the prefix of one of its keys']], q)
      assert.ok(
        (await matches(ci.key.slice(0, 10))).some(([id]) => id === jane),
        'a shorter prefix',
      )
      const longer = await search(ci.key.slice(0, 20))
      assert.ok(!longer.body.includes(ci.key.slice(0, 13)), 'a longer paste is shown back only as its prefix')
      assert.ok(!longer.opened!.includes(ci.key.slice(0, 12)), 'and is not in the address')

      // A whole secret finds its key through its hash, and appears nowhere: not in the page, not in its address.
      const bySecret = await search(ci.key)
      assert.equal(bySecret.opened, `/console/accounts/${jane}?found=secret`)
      assert.deepEqual(await matches(ci.key), [
        [jane, 'the whole secret of one of its keys (found through its hash; not kept)'],
      ])
      assert.ok(!bySecret.body.includes(ci.key.slice(0, 13)), 'the secret is not in the page')
      // A link with ?q= works too, for ordinary searches and secrets alike.
      const linked = await search(ci.key, 'get')
      assert.equal(linked.opened, `/console/accounts/${jane}?found=secret`)
      assert.ok(!linked.body.includes(ci.key.slice(0, 13)))
      // A secret that is not a key's: one with a key's prefix finds that key by its prefix only (a leaked secret
      // that was rolled since), another finds nothing; neither is shown back.
      const altered = `${ci.key.slice(0, -4)}AAAA`
      assert.deepEqual(await matches(altered), [[jane, 'the prefix of one of its keys']])
      const unknownSecret = `ps_test_-_-_${ci.key.slice(12)}`
      const unknown = await search(unknownSecret)
      assert.deepEqual(results(unknown.body), [])
      assert.match(unknown.body, /No account matches “ps_test_-_-_…”/)
      assert.ok(!unknown.body.includes(unknownSecret.slice(0, 13)))
      assert.match(unknown.body, /<input type="text" id="q" name="q" value=""/, 'nor left in the field')

      // An address that carries a reason it does not know says nothing about it.
      const odd = await operator.get(`/console/accounts/${jane}?found=%3Cscript%3E,nonsense`)
      assert.equal(odd.statusCode, 200)
      assert.doesNotMatch(odd.body, /The only account your search matched/)

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
