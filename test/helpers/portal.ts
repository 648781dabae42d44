// The portal through HTTP (inject): a cookie jar, the CSRF token of each form, and the mail written to the
// outbox folder (MAIL_URL=file:DIR).
import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { startHarness, type Harness } from './harness.js'
import type { Services } from '../../src/main/services.js'
import { openDatabase } from '../../src/db/database.js'
import { loadConfig } from '../../src/kernel/config.js'
import { appWithServices } from './app-with-services.js'

export const ORIGIN = 'http://portal.test'
export const GOOD_PASSWORD = 'correct horse battery staple'

/** A folder for the outbox; `removeOutbox` deletes it (register it after the app's close: mail may be under way). */
export const newOutbox = () => mkdtemp(join(tmpdir(), 'petstore-outbox-'))
export const removeOutbox = (dir: string) => rm(dir, { recursive: true, force: true })

/**
 * The app with its mail written to an outbox folder (`outbox`). Its public URL is ORIGIN, which the injected
 * client sends; `ownOrigin` (with `listen`): the listener's own origin instead, the one a browser visits.
 */
export async function portalHarness(
  t: TestContext,
  { ownOrigin = false, ...options }: NonNullable<Parameters<typeof startHarness>[1]> & { ownOrigin?: boolean } = {},
): Promise<Harness & { outbox: string }> {
  const outbox = await newOutbox()
  const publicUrl = ownOrigin ? {} : { PETSTORE_PUBLIC_URL: ORIGIN }
  const harness = await startHarness(t, {
    ...options,
    env: { MAIL_URL: `file:${outbox}`, ...publicUrl, ...options.env },
  })
  t.after(() => removeOutbox(outbox))
  return { ...harness, outbox }
}

/** The messages in the outbox (oldest first), each as its raw RFC 5322 text; waits for mail still being sent. */
export async function mails(h: { services: Pick<Services, 'portal'> }, dir: string): Promise<string[]> {
  await h.services.portal?.mailer.settled()
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.eml')).sort()
  return Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')))
}

/** The first link to `path` in a message (quoted-printable soft line breaks undone). */
export function linkIn(mail: string, path: string): string {
  const text = mail.replace(/=\r?\n/g, '').replace(/=3D/g, '=')
  const match = new RegExp(`https?://[^\\s]*${path.replace(/[/?]/g, '\\$&')}[^\\s]*`).exec(text)
  assert.ok(match, `no link to ${path} in:\n${mail}`)
  return match[0]
}

/** The token of an emailed link: the last segment of its path (/portal/verify/TOKEN). */
export const tokenOf = (link: string): string => new URL(link).pathname.split('/').at(-1)!

/** A browser-like client: keeps cookies, reads each form's CSRF token, sends our Origin. */
export function client(app: FastifyInstance, origin = ORIGIN) {
  const jar = new Map<string, string>()
  let csrf = ''
  const remember = (response: LightMyRequestResponse) => {
    for (const c of response.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      if (c.value === '' || (c.expires && c.expires.getTime() <= Date.now())) jar.delete(c.name)
      else jar.set(c.name, c.value)
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)
    if (token) csrf = token[1]!
    return response
  }
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  return {
    jar,
    get csrf() {
      return csrf
    },
    get: async (url: string) => remember(await app.inject({ method: 'GET', url, headers: { cookie: cookie() } })),
    /**
     * A form post with the current CSRF token (unless `_csrf` is given) and the Origin header (unless `headers`
     * replaces it).
     */
    post: async (url: string, fields: Record<string, string>, headers: Record<string, string> = { origin }) =>
      remember(
        await app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie(), ...headers },
          payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
        }),
      ),
  }
}

export type Client = ReturnType<typeof client>

/** Signs up, verifies through the mailed link and logs in; returns the logged-in client. */
export async function signedUpUser(
  h: { app: FastifyInstance; services: Services; outbox: string },
  email: string,
  password = GOOD_PASSWORD,
): Promise<Client> {
  const c = client(h.app)
  await c.get('/portal/signup')
  assert.equal((await c.post('/portal/signup', { email, password })).statusCode, 200)
  const mail = (await mails(h, h.outbox)).findLast((m) => m.includes(email) && m.includes('/portal/verify'))!
  const url = new URL(linkIn(mail, '/portal/verify'))
  await c.get(url.pathname + url.search)
  assert.equal((await c.post('/portal/verify', { token: tokenOf(url.href) })).statusCode, 200)
  await c.get('/portal/login')
  const login = await c.post('/portal/login', { email, password })
  assert.equal(login.statusCode, 303, login.body)
  return c
}

/**
 * A second instance of the harness's portal (PostgreSQL pass): its own services and connection pool on the same
 * schema, the same outbox and test clock, as a second server behind a load balancer. Closed after the test.
 */
export async function secondPortalInstance(
  t: TestContext,
  h: Harness & { outbox: string },
): Promise<Awaited<ReturnType<typeof appWithServices>>> {
  const config = loadConfig(
    { LOG_LEVEL: 'silent', PETSTORE_PUBLIC_URL: ORIGIN, MAIL_URL: `file:${h.outbox}`, PASSWORD_HASH_COST: '4' },
    { databaseUrl: h.config.databaseUrl, redisUrl: h.config.redisUrl },
  )
  const handle = openDatabase(h.config.databaseUrl, { poolSize: 2 })
  const second = await appWithServices({ ...handle, config, clock: h.clock, logger: false })
  t.after(async () => {
    await second.app.close()
    await second.services.close()
    await handle.close()
  })
  return second
}
