// The developer portal under /portal: its own scope on the pet store listener, with form and cookie parsing,
// security headers, the visitor (session) of every request, CSRF checks on every POST, and HTML error pages.
// The /v1 API's error shape, rate limiting and quota are untouched: nothing here runs for /v1.
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AccountsRepository } from '../accounts/accounts.repository.js'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import { isDatabaseUnavailable } from '../db/unavailable.js'
import { PORTAL_CSS, PORTAL_FAVICON, PORTAL_JS } from './assets.js'
import { createCsrf, type Csrf } from './csrf.js'
import { html } from './html.js'
import { keysRoutes } from './keys.routes.js'
import { loginRoutes } from './login.routes.js'
import { page, type PageContext } from './layout.js'
import type { Mailer } from './mail.js'
import type { PortalRepository } from './portal.repository.js'
import { settingsRoutes } from './settings.routes.js'
import type { SettingsRepository } from './settings.repository.js'
import { createSessions, type Sessions, type Visitor } from './session.js'
import { PortalError, redirect, sendPage } from './reply.js'
import { resetRoutes } from './reset.routes.js'
import { loginFor } from './safe-next.js'
import { signupRoutes } from './signup.routes.js'
import { usageRoutes, type UsageReader } from './usage.routes.js'

export interface PortalOptions {
  config: Config
  clock: Clock
  accounts: AccountsRepository
  usage: UsageReader
  repo: PortalRepository
  /** The account settings page's reads and changes (settings.repository.ts). */
  settings: SettingsRepository
  mailer: Mailer
  /** Signs CSRF tokens (kept in the database, so every instance agrees). */
  csrfSecret: string
  /** Seals a new key's secret in a cookie across the redirect that shows it (secret-flash.ts). */
  flashSecret: string
}

/** What a portal route handler needs besides the request. */
export interface Portal extends PortalOptions {
  sessions: Sessions
  csrf: Csrf
  /** The page context of this visitor (a pre-session is started if it has none, so its forms carry a token). */
  context(request: FastifyRequest, reply: FastifyReply): PageContext
  /** An absolute link to one of our pages, for mail: from PETSTORE_PUBLIC_URL, never from the request. */
  link(path: string): string
}

declare module 'fastify' {
  interface FastifyRequest {
    visitor: Visitor
  }
}

// No inline script or style anywhere; forms post only to ourselves; nobody may frame the portal.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

/** Pages anyone may open (the rest need a signed-in visitor): signing up and in, emailed links, assets. */
const PUBLIC_PAGES = ['/portal/signup', '/portal/login', '/portal/reset', '/portal/verify', '/portal/account/email/', '/portal/assets/']
const isPublicPage = (route: string) => route === '/portal' || route === '/portal/' || PUBLIC_PAGES.some((prefix) => route.startsWith(prefix))

export async function portalPlugin(app: FastifyInstance, options: PortalOptions): Promise<void> {
  const sessions = createSessions({ repo: options.repo, clock: options.clock, publicUrl: options.config.publicUrl })
  const csrf = createCsrf({ secret: options.csrfSecret, publicUrl: options.config.publicUrl })
  const portal: Portal = {
    ...options,
    sessions,
    csrf,
    context(request, reply) {
      const binding = sessions.ensurePreSession(reply, request.visitor)
      return { email: request.visitor.user?.email, csrf: csrf.token(binding), path: request.url.split('?')[0] }
    },
    link: (path) => `${options.config.publicUrl}${path}`,
  }

  // Mail still being sent when the app closes goes out first.
  app.addHook('onClose', async () => options.mailer.settled())
  await app.register(cookie)
  await app.register(formbody, { bodyLimit: 16 * 1024 })
  app.decorateRequest('visitor', null as unknown as Visitor)

  app.addHook('onRequest', async (_request, reply) => {
    reply.headers({
      'content-security-policy': CSP,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      // `same-origin`: our own form posts keep their Origin header (the CSRF check reads it); nothing leaks out.
      'referrer-policy': 'same-origin',
      // Pages carry CSRF tokens and account data, some a secret: never stored by a browser or a proxy.
      'cache-control': 'no-store',
    })
  })
  app.addHook('preValidation', async (request, reply) => {
    request.visitor = await sessions.identify(request)
    // A page that needs a signed-in visitor sends the others to log in, and back here afterwards.
    if (request.method === 'GET' && !request.visitor.user && request.routeOptions.url !== undefined && !isPublicPage(request.routeOptions.url)) {
      return reply.code(303).header('location', loginFor(request.url)).send()
    }
    if (request.method !== 'POST') return
    const presented = (request.body as Record<string, unknown> | undefined)?._csrf
    if (!csrf.allows(request, request.visitor.binding, presented)) {
      throw new PortalError(403, 'Request refused', 'This form was sent from another site, or has expired. Go back, reload the page and try again.')
    }
  })

  // The visitor is known once the preValidation hook ran (it runs before a 404 too): a signed-in user keeps the
  // navigation and Log out on an error or missing page.
  const frameOf = (request: FastifyRequest): PageContext => {
    const visitor = request.visitor as Visitor | null
    return visitor?.user && visitor.binding ? { email: visitor.user.email, csrf: csrf.token(visitor.binding) } : { csrf: '' }
  }
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const ctx = frameOf(request)
    const show = (status: number, title: string, message: string) =>
      sendPage(reply, status, page(ctx, title, html`<p>${message}</p><p><a href="/portal/keys">Back to the portal</a></p>`))
    if (error instanceof PortalError) return show(error.status, error.title, error.message).headers(error.headers)
    if (error.validation || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
      return show(400, 'Something is missing', 'The form was incomplete or not understood. Go back, reload the page and try again.')
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable')
      return show(503, 'Try again shortly', 'The portal cannot reach its database right now. Try again in a moment.').header('retry-after', '2')
    }
    request.log.error({ err: error }, 'unhandled error')
    return show(500, 'Something went wrong', 'Something went wrong on our side. Try again later.')
  })
  app.setNotFoundHandler((request, reply) => {
    sendPage(reply, 404, page(frameOf(request), 'Page not found', html`<p>There is no page at ${request.url.split('?')[0]}.</p><p><a href="/portal/keys">Go to the portal</a></p>`))
  })

  const asset = (type: string, body: string) => async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('content-type', type).header('cache-control', 'public, max-age=3600').send(body)
  app.get('/assets/portal.css', { schema: { hide: true } }, asset('text/css; charset=utf-8', PORTAL_CSS))
  app.get('/assets/portal.js', { schema: { hide: true } }, asset('text/javascript; charset=utf-8', PORTAL_JS))
  app.get('/assets/favicon.svg', { schema: { hide: true } }, asset('image/svg+xml', PORTAL_FAVICON))
  app.get('/', { schema: { hide: true } }, async (request, reply) => redirect(reply, request.visitor.user ? '/portal/keys' : '/portal/login'))

  await signupRoutes(app, portal)
  await loginRoutes(app, portal)
  await resetRoutes(app, portal)
  await keysRoutes(app, portal)
  await usageRoutes(app, portal)
  await settingsRoutes(app, portal)
}
