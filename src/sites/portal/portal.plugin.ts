// The developer portal under /portal: its own scope on the pet store listener (src/web/site-scope.ts: form and
// cookie parsing, security headers, the visitor (session) of every request, CSRF checks on every POST, HTML error
// pages), its context for the route modules, and its routes.
// The /v1 API's error shape, rate limiting and quota are untouched: nothing here runs for /v1.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { PORTAL_CSS, PORTAL_FAVICON, PORTAL_JS } from '../kit/assets.js'
import { createCsrf } from '../kit/csrf.js'
import { activityRoutes } from './activity.routes.js'
import { keysRoutes } from './keys.routes.js'
import { loginRoutes } from './login.routes.js'
import { page } from './layout.js'
import { planRequestsRoutes } from './plan-requests.routes.js'
import type { PortalUser } from '../../modules/integrators/integrators.repository.js'
import { settingsRoutes } from './settings.routes.js'
import { createSessions } from './session.js'
import { redirect } from '../kit/reply.js'
import { siteScope } from '../kit/site-scope.js'
import { resetRoutes } from './reset.routes.js'
import { signupRoutes } from './signup.routes.js'
import { usageRoutes } from './usage.routes.js'
import { webhooksRoutes } from './webhooks.routes.js'
import { sudoRoutes } from './sudo.js'
import { may, membershipHooks, roleNeeded } from './membership.js'
import { accountSwitcherHook } from './account-switcher.js'
import { membersRoutes } from './members.routes.js'
import { invitationRoutes } from './invitation.routes.js'
import { loginStepRoutes } from './login-step.routes.js'
import { twoFactorRoutes } from './two-factor.routes.js'
import { webauthnBrowserScript } from './passkey-assets.js'
import { type Abilities, PORTAL_BOUNDS, type Portal, type PortalOptions } from './portal.context.js'

/** Pages anyone may open (the rest need a signed-in visitor): signing up and in, emailed links, assets. */
const PUBLIC_PAGES = [
  '/portal/signup',
  '/portal/login',
  '/portal/reset',
  '/portal/verify',
  '/portal/account/email/',
  '/portal/invitations/',
  '/portal/assets/',
]
const isPublicPage = (route: string) =>
  route === '/portal' || route === '/portal/' || PUBLIC_PAGES.some((prefix) => route.startsWith(prefix))

/** Whether the request's member may send this form: the role membership.ts's table asks of it. */
const mayPost = (request: FastifyRequest, route: string) => may(request, roleNeeded('POST', route) ?? 'viewer')

const abilitiesOf = (request: FastifyRequest): Abilities => ({
  manageKeys: mayPost(request, '/portal/keys'),
  manageWebhooks: mayPost(request, '/portal/webhooks'),
  requestPlan: mayPost(request, '/portal/plan-requests'),
  deleteAccount: mayPost(request, '/portal/account/delete'),
})

/** What the frame shows of the visitor's memberships: the Members link, and the switcher (account-switcher.ts). */
const membershipFrame = (request: FastifyRequest) => ({
  members: request.member !== undefined,
  accounts: request.accountChoices,
})

export async function portalPlugin(app: FastifyInstance, options: PortalOptions): Promise<void> {
  const sessions = createSessions({
    repo: options.repo,
    clock: options.clock,
    publicUrl: options.config.publicUrl,
    secret: options.csrfSecret,
  })
  const csrf = createCsrf({ secret: options.csrfSecret, publicUrl: options.config.publicUrl })
  const portal: Portal = {
    ...options,
    sessions,
    csrf,
    context(request, reply) {
      const binding = sessions.ensurePreSession(reply, request.visitor)
      return {
        email: request.visitor.user?.email,
        csrf: csrf.token(binding),
        path: request.url.split('?')[0],
        signupClosed: options.config.portalSignup === 'closed',
        webhooks: options.webhooks !== undefined,
        ...membershipFrame(request),
        can: abilitiesOf(request),
      }
    },
    link: (path) => `${options.config.publicUrl}${path}`,
  }

  await siteScope<PortalUser>(app, {
    name: 'portal',
    bounds: PORTAL_BOUNDS,
    visitorProperty: 'visitor',
    visitorLogField: 'portalUserId',
    sessions,
    csrf,
    mailer: options.mailer,
    databaseOutage: options.databaseOutage,
    isPublicPage,
    page: (frame, title, content) =>
      page(
        {
          email: frame.user?.email,
          csrf: frame.csrf,
          webhooks: options.webhooks !== undefined,
          ...(frame.user ? membershipFrame(frame.request) : {}),
        },
        title,
        content,
      ),
    assets: {
      'portal.css': { type: 'text/css; charset=utf-8', body: PORTAL_CSS },
      'portal.js': { type: 'text/javascript; charset=utf-8', body: PORTAL_JS },
      'favicon.svg': { type: 'image/svg+xml', body: PORTAL_FAVICON },
      'webauthn.js': { type: 'text/javascript; charset=utf-8', body: webauthnBrowserScript() },
    },
  })
  app.get('/', { schema: { hide: true } }, async (request, reply) =>
    redirect(reply, request.visitor.user ? '/portal/keys' : '/portal/login'),
  )

  // The account and role of each request (membership.ts) and the accounts of the frame's switcher, then sudo mode's
  // gate: all before the routes.
  membershipHooks(app, portal)
  accountSwitcherHook(app, portal)
  await sudoRoutes(app, portal)
  await signupRoutes(app, portal)
  await loginRoutes(app, portal)
  await loginStepRoutes(app, portal)
  await twoFactorRoutes(app, portal)
  await resetRoutes(app, portal)
  await keysRoutes(app, portal)
  await usageRoutes(app, portal)
  await planRequestsRoutes(app, portal)
  await activityRoutes(app, portal)
  await settingsRoutes(app, portal)
  await membersRoutes(app, portal)
  await invitationRoutes(app, portal)
  // WEBHOOKS=off: no webhooks pages (and no link to them).
  if (options.webhooks) await webhooksRoutes(app, portal, options.webhooks)
}
