// The cookie that carries a new key's secret across the redirect (secret-flash.ts), through HTTP on a bare
// Fastify app: its name and attributes over https and http, and that it opens only once per delivery.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import cookie from '@fastify/cookie'
import Fastify from 'fastify'
import { createManualClock } from '../../../src/kernel/clock.js'
import { createSecretFlash, FLASH_SECONDS } from '../../../src/sites/portal/secret-flash.js'

async function flashApp(t: { after: (fn: () => Promise<void>) => void }, publicUrl: string | undefined) {
  const clock = createManualClock(new Date('2027-01-01T00:00:00Z'))
  const flash = createSecretFlash({ secret: 'server-secret', publicUrl, clock })
  const app = Fastify()
  await app.register(cookie)
  app.post('/give/:keyId', async (request, reply) => {
    flash.give(reply, {
      sessionId: 'session-1',
      keyId: (request.params as { keyId: string }).keyId,
      secret: 'ps_test_secret',
    })
    return reply.code(303).header('location', '/shown').send()
  })
  app.get('/take/:keyId', async (request, reply) => ({
    secret:
      flash.take(request, reply, { sessionId: 'session-1', keyId: (request.params as { keyId: string }).keyId }) ??
      null,
  }))
  t.after(() => app.close())
  return app
}

test(
  'over https the cookie is __Secure-, Secure, HttpOnly, ' + 'SameSite=Strict, for the one page, for two minutes',
  async (t) => {
    const app = await flashApp(t, 'https://portal.example')
    const given = await app.inject({ method: 'POST', url: '/give/key_abc' })
    const setCookie = String(given.headers['set-cookie'])
    assert.match(setCookie, /^__Secure-portal_new_key=[\w-]+; /)
    for (const attribute of [
      `Max-Age=${FLASH_SECONDS}`,
      'Path=/portal/keys/key_abc/created',
      'HttpOnly',
      'Secure',
      'SameSite=Strict',
    ]) {
      assert.ok(setCookie.split('; ').includes(attribute), `${attribute} in ${setCookie}`)
    }
    assert.ok(
      !setCookie.includes('ps_test_secret') && !setCookie.includes(Buffer.from('ps_test_secret').toString('base64url')),
      'sealed, not encoded',
    )
    const value = /=([\w-]+);/.exec(setCookie)![1]!
    const taken = await app.inject({ url: '/take/key_abc', cookies: { '__Secure-portal_new_key': value } })
    assert.deepEqual(taken.json(), { secret: 'ps_test_secret' })
    assert.match(
      String(taken.headers['set-cookie']),
      /^__Secure-portal_new_key=; .*Path=\/portal\/keys\/key_abc\/created/,
      'cleared on the path it was set for',
    )
    // The plain name is not read over https (a cookie an http page could have set).
    assert.deepEqual((await app.inject({ url: '/take/key_abc', cookies: { portal_new_key: value } })).json(), {
      secret: null,
    })
  },
)

test('over http (development) the cookie has a plain name and no Secure attribute', async (t) => {
  const app = await flashApp(t, 'http://127.0.0.1:8080')
  const setCookie = String((await app.inject({ method: 'POST', url: '/give/key_abc' })).headers['set-cookie'])
  assert.match(setCookie, /^portal_new_key=/)
  assert.ok(!setCookie.split('; ').includes('Secure'))
})
