// What the portal and the console each set up in their scope on the pet store listener, the same way for both: form
// and cookie parsing, security headers, the visitor (session) of every request, a log-in for every page that is not
// public, CSRF checks on every POST, and HTML error and not-found pages in the site's own frame. Each site passes
// its sessions, CSRF signer, pages and assets; the request property its visitor is kept in is the site's own.
import { loginFor, type SiteBounds } from './safe-next.js'
import cookie from '@fastify/cookie'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../../db/unavailable.js'
import { reportDatabaseUnavailable } from '../../ops/database-outage.js'
import type { Csrf } from './csrf.js'
import { FORM_BODY_LIMIT_BYTES, registerFormBody } from './form-body.js'
import { html, type Html } from './html.js'
import type { Mailer } from '../../mail/mail.js'
import { PageError, sendPage } from './reply.js'
import { TooManyLogins } from '../../modules/sign-in/login-throttle.errors.js'
import type { Sessions, Visitor } from './sessions.js'
import type { OutageLog } from '../../ops/outage-log.js'
import { addLogFields } from '../../ops/log-fields.js'

// No inline script or style anywhere; forms post only to ourselves; nobody may frame a page.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'"

const CLIENT_ERROR_TITLES: Record<number, string> = { 400: 'Request not understood', 429: 'Too many requests' }
const NOT_A_FORM =
  'This page takes a form sent by a browser (application/x-www-form-urlencoded), nothing else. Go back, reload the ' +
  'page and try again.'
const TOO_LARGE =
  `The form was larger than ${FORM_BODY_LIMIT_BYTES / 1024} KiB. ` + `Go back, shorten what you entered and try again.`

interface SiteScope<User extends { id: string }> {
  /** The site as error pages name it ('portal', 'console'). */
  name: string
  /** The site's path and home page: where its error pages lead back to, and where log-in may return. */
  bounds: SiteBounds
  /** The request property that holds the visitor (declared by the site on FastifyRequest). */
  visitorProperty: string
  /** The field of the request's log line that names a signed-in visitor by id (`operatorId`, `portalUserId`). */
  visitorLogField: string
  sessions: Sessions<User>
  csrf: Csrf
  /** Mail still being sent when the app closes goes out first (a private console may have none). */
  mailer: Mailer | undefined
  /** Pages anyone may open, by route; the others send a visitor who is not signed in to log in. */
  isPublicPage: (route: string) => boolean
  /** A page in the site's frame, for a signed-in `user` (navigation, Log out) or nobody, answering `request`. */
  page: (frame: { user?: User; csrf: string; request: FastifyRequest }, title: string, content: Html) => string
  /** The process's database outage (ops/outage-log.ts): pages refused by it are counted there. */
  databaseOutage?: OutageLog
  /** Files under the scope's /assets/: name -> content type and body. */
  assets: Record<string, { type: string; body: string }>
}

/**
 * A refusal raised before the route by the transport every listener shares (a repeated query parameter, two Host
 * headers, an address out of requests: the API's ApiError), known by its name and shape: the kit imports no surface.
 */
function isTransportRefusal(error: unknown): error is Error & { status: number; headers: Record<string, string> } {
  return (
    error instanceof Error && error.name === 'ApiError' && typeof (error as { status?: unknown }).status === 'number'
  )
}
export async function siteScope<User extends { id: string }>(
  app: FastifyInstance,
  site: SiteScope<User>,
): Promise<void> {
  const { sessions, csrf } = site
  const visitorOf = (request: FastifyRequest) =>
    (request as unknown as Record<string, Visitor<User> | null>)[site.visitorProperty] ?? null

  app.addHook('onClose', async () => site.mailer?.settled())
  await app.register(cookie)
  await registerFormBody(app)
  app.decorateRequest(site.visitorProperty, null)

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
    const visitor = await sessions.identify(request)
    ;(request as unknown as Record<string, Visitor<User>>)[site.visitorProperty] = visitor
    if (visitor.user) addLogFields(request, { [site.visitorLogField]: visitor.user.id })
    // A page that needs a signed-in visitor sends the others to log in, and back here afterwards.
    if (
      request.method === 'GET' &&
      !visitor.user &&
      request.routeOptions.url !== undefined &&
      !site.isPublicPage(request.routeOptions.url)
    ) {
      return reply.code(303).header('location', loginFor(request.url, site.bounds)).send()
    }
    if (request.method !== 'POST') return
    const presented = (request.body as Record<string, unknown> | undefined)?._csrf
    if (!csrf.allows(request, visitor.binding, presented)) {
      throw new PageError(
        403,
        'Request refused',
        'This form was sent from another site, or has expired. Go back, reload the page and try again.',
      )
    }
  })

  // The visitor is known once the preValidation hook ran (it runs before a 404 too): a signed-in user keeps the
  // navigation and Log out on an error or missing page.
  const frameOf = (request: FastifyRequest) => {
    const visitor = visitorOf(request)
    return visitor?.user && visitor.binding
      ? { user: visitor.user, csrf: csrf.token(visitor.binding), request }
      : { csrf: '', request }
  }
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const frame = frameOf(request)
    const show = (status: number, title: string, message: string) =>
      sendPage(
        reply,
        status,
        site.page(
          frame,
          title,
          html`<p>${message}</p><p><a href="${site.bounds.home}">Back to the ${site.name}</a></p>`,
        ),
      )
    if (error instanceof PageError) return show(error.status, error.title, error.message).headers(error.headers)
    if (error instanceof TooManyLogins) {
      const message =
        `Too many failed log-ins ${error.whose}. ` +
        `Wait ${Math.ceil(error.retryAfterSeconds / 60)} minutes before trying again${error.advice}.`
      return show(429, 'Too many attempts', message).headers({ 'retry-after': String(error.retryAfterSeconds) })
    }
    // Refused before the route by what every listener checks (a repeated query parameter, two Host headers, an
    // address out of requests): the API's status and words, on the site's page.
    if (isTransportRefusal(error))
      return show(error.status, CLIENT_ERROR_TITLES[error.status] ?? 'Request refused', error.message).headers(
        error.headers,
      )
    if (error.statusCode === 415) return show(415, 'Not a form', NOT_A_FORM)
    // A 400 like any form the route cannot use (not the API's 413): the page says what to change.
    if (error.statusCode === 413) return show(400, 'Form too large', TOO_LARGE)
    if (error.validation || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
      return show(
        400,
        'Something is missing',
        'The form was incomplete or not understood. Go back, reload the page and try again.',
      )
    }
    if (isDatabaseUnavailable(error)) {
      reportDatabaseUnavailable(site.databaseOutage, request, error)
      return show(
        503,
        'Try again shortly',
        `The ${site.name} cannot reach its database right now. Try again in a moment.`,
      ).header('retry-after', '2')
    }
    request.log.error({ err: error }, 'unhandled error')
    return show(500, 'Something went wrong', 'Something went wrong on our side. Try again later.')
  })
  app.setNotFoundHandler((request, reply) => {
    sendPage(
      reply,
      404,
      site.page(
        frameOf(request),
        'Page not found',
        html`<p>There is no page at ${request.url.split('?')[0]}.</p><p><a href="${site.bounds.home}">Go to \
the ${site.name}</a></p>`,
      ),
    )
  })

  for (const [name, { type, body }] of Object.entries(site.assets)) {
    app.get(`/assets/${name}`, { schema: { hide: true } }, async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.header('content-type', type).header('cache-control', 'public, max-age=3600').send(body),
    )
  }
}
