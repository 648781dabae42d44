// The CSRF binding of a visitor without a session is a pre-session value the server made: a pre-session cookie
// the visitor chose (or planted in someone's browser, e.g. from a sibling subdomain) is replaced by a fresh one,
// and a form posted with the planted cookie and a token for it is refused with the site's usual 403, on the
// portal and on the console alike.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { consoleHarness, setUpOperator } from '../../helpers/console.js'
import { GOOD_PASSWORD, ORIGIN, signedUpUser } from '../../helpers/portal.js'

const FORM = 'application/x-www-form-urlencoded'
const tokenIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1]

/** GET the log-in form with `cookie`, then POST it back with that cookie and the page's token. */
async function logInWith(app: FastifyInstance, site: string, cookie: string, fields: Record<string, string>) {
  const form = await app.inject({ url: `/${site}/login`, headers: { cookie } })
  const token = tokenIn(form.body)
  assert.ok(token, 'the form has a token')
  const post = await app.inject({
    method: 'POST',
    url: `/${site}/login`,
    headers: { origin: ORIGIN, cookie, 'content-type': FORM },
    payload: new URLSearchParams({ _csrf: token, ...fields }).toString(),
  })
  return { form, post }
}

test(
  'a pre-session cookie the visitor chose is replaced, ' + 'and a form posted with it is refused (portal and console)',
  async (t) => {
    const h = await consoleHarness(t)
    await signedUpUser(h, 'planted@example.com')
    const operator = await setUpOperator(h, { role: 'admin' })
    const sites: { site: string; fields: Record<string, string> }[] = [
      { site: 'portal', fields: { email: 'planted@example.com', password: GOOD_PASSWORD } },
      {
        site: 'console',
        fields: { email: operator.email, password: operator.password, code: operator.codeAt(h.clock.now() + 30_000) },
      },
    ]
    for (const { site, fields } of sites) {
      const name = `${site}_pre`
      // Plain values, and values shaped like what the server issues but not made by it.
      const real = (await h.app.inject({ url: `/${site}/login` })).cookies.find((c) => c.name === name)!.value
      const [id, signature] = real.split('.')
      const forgeries = [
        'attacker-chosen',
        'A'.repeat(43),
        `${'A'.repeat(43)}.${signature ?? 'x'}`,
        `${id}.${'A'.repeat(43)}`,
        `${id}`,
      ]
      for (const forged of forgeries) {
        const { form, post } = await logInWith(h.app, site, `${name}=${forged}`, fields)
        const issued = form.cookies.find((c) => c.name === name)
        assert.ok(issued && issued.value !== forged, `${site}: a fresh pre-session replaces ${forged}`)
        assert.equal(post.statusCode, 403, `${site} with ${forged}: ${post.body.slice(0, 200)}`)
        assert.match(String(post.headers['content-type']), /^text\/html/)
        assert.match(post.body, /another site/)
      }
      // The value the server issued still carries its forms.
      const { form, post } = await logInWith(h.app, site, `${name}=${real}`, fields)
      assert.equal(
        form.cookies.find((c) => c.name === name),
        undefined,
        `${site}: its own pre-session is kept`,
      )
      assert.equal(post.statusCode, 303, `${site}: ${post.body.slice(0, 300)}`)
    }
  },
)
