// The developer portal under /portal: its own scope on the pet store listener (src/web/site-scope.ts: form and
// cookie parsing, security headers, the visitor (session) of every request, CSRF checks on every POST, HTML error
// pages), its context for the route modules, and its routes.
// The /v1 API's error shape, rate limiting and quota are untouched: nothing here runs for /v1.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AccountsRepository } from '../../modules/accounts/accounts.repository.js'
import type { Verification } from '../../modules/integrators/verification.js'
import type { Clock } from '../../kernel/clock.js'
import type { Config } from '../../kernel/config.js'
import { PORTAL_CSS, PORTAL_FAVICON, PORTAL_JS } from '../kit/assets.js'
import { createCsrf, type Csrf } from '../kit/csrf.js'
import { activityRoutes } from './activity.routes.js'
import type { AuditRepository } from '../../modules/audit/audit.repository.js'
import type { Metrics } from '../../ops/metrics.js'
import { keysRoutes } from './keys.routes.js'
import { loginRoutes } from './login.routes.js'
import { page, type PageContext } from './layout.js'
import type { Mailer } from '../../mail/mail.js'
import type { PlanRequests } from '../../modules/plan-requests/plan-requests.service.js'
import type { PlanRequestThrottle } from '../../modules/plan-requests/plan-request-throttle.js'
import { planRequestsRoutes } from './plan-requests.routes.js'
import type { PortalRepository, PortalUser } from '../../modules/integrators/integrators.repository.js'
import { settingsRoutes } from './settings.routes.js'
import type { SettingsRepository } from '../../modules/integrators/settings.repository.js'
import { createSessions, type Sessions, type Visitor } from './session.js'
import { redirect } from '../kit/reply.js'
import { siteScope } from '../kit/site-scope.js'
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
  /** Verification links and their message (shared with the console: accounts/verification.ts). */
  verification: Verification
  /** Signs CSRF tokens (kept in the database, so every instance agrees). */
  csrfSecret: string
  /** Seals a new key's secret in a cookie across the redirect that shows it (secret-flash.ts). */
  flashSecret: string
  /** Requests for a higher plan (src/plan-requests/), asked for on the usage page. */
  planRequests: PlanRequests
  /** How many plan requests one client address may send (plan-request-throttle.ts). */
  planRequestThrottle: PlanRequestThrottle
  /** The audit log, read for the account's own entries (/portal/activity). */
  audit: AuditRepository
  /** Sign-ups and log-ins, counted for /metrics. */
  metrics: Metrics['portal']
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

/** Pages anyone may open (the rest need a signed-in visitor): signing up and in, emailed links, assets. */
const PUBLIC_PAGES = ['/portal/signup', '/portal/login', '/portal/reset', '/portal/verify', '/portal/account/email/', '/portal/assets/']
const isPublicPage = (route: string) => route === '/portal' || route === '/portal/' || PUBLIC_PAGES.some((prefix) => route.startsWith(prefix))

export async function portalPlugin(app: FastifyInstance, options: PortalOptions): Promise<void> {
  const sessions = createSessions({ repo: options.repo, clock: options.clock, publicUrl: options.config.publicUrl, secret: options.csrfSecret })
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

  await siteScope<PortalUser>(app, {
    name: 'portal',
    home: '/portal/keys',
    visitorProperty: 'visitor',
    sessions,
    csrf,
    mailer: options.mailer,
    isPublicPage,
    loginFor,
    page: (frame, title, content) => page({ email: frame.user?.email, csrf: frame.csrf }, title, content),
    assets: {
      'portal.css': { type: 'text/css; charset=utf-8', body: PORTAL_CSS },
      'portal.js': { type: 'text/javascript; charset=utf-8', body: PORTAL_JS },
      'favicon.svg': { type: 'image/svg+xml', body: PORTAL_FAVICON },
    },
  })
  app.get('/', { schema: { hide: true } }, async (request, reply) => redirect(reply, request.visitor.user ? '/portal/keys' : '/portal/login'))

  await signupRoutes(app, portal)
  await loginRoutes(app, portal)
  await resetRoutes(app, portal)
  await keysRoutes(app, portal)
  await usageRoutes(app, portal)
  await planRequestsRoutes(app, portal)
  await activityRoutes(app, portal)
  await settingsRoutes(app, portal)
}
