// The operator console under /console: its own scope on the pet store listener, or on a listener of its own
// (main/console-app.ts). Apart from the portal: its own session cookie on Path=/console, its own CSRF secret and
// token purpose; set up as the portal's is (kit/site-scope.ts: security headers, the operator (session) of every
// request, CSRF checks on every POST, a log-in for every page, HTML errors), the roles, and the routes.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { roleSuffices, type Operator } from '../../modules/operators/operator.js'
import { CONSOLE_CSS, PORTAL_FAVICON } from '../kit/assets.js'
import { createCsrf } from '../kit/csrf.js'
import { PageError } from '../kit/reply.js'
import { siteScope } from '../kit/site-scope.js'
import { accountActionsRoutes } from './account-actions.routes.js'
import { accountWebhooksRoutes } from './account-webhooks.routes.js'
import { accountRoutes } from './account.routes.js'
import { auditRoutes } from './audit.routes.js'
import { consolePage } from './layout.js'
import { loginRoutes } from './login.routes.js'
import { operatorsRoutes } from './operators.routes.js'
import { overviewRoutes } from './overview.routes.js'
import { requestsRoutes } from './requests.routes.js'
import { invitationsRoutes } from './invitations.routes.js'
import { searchRoutes } from './search.routes.js'
import { createConsoleSessions } from './sessions.js'
import { setupRoutes } from './setup.routes.js'
import { CONSOLE_BOUNDS, type ConsoleOptions, type OperatorConsole } from './console.context.js'

/** Pages anyone may open (the rest need a signed-in operator): logging in, setup links, assets. */
const PUBLIC_PAGES = ['/console/login', '/console/setup/', '/console/assets/']
const isPublicPage = (route: string) => PUBLIC_PAGES.some((prefix) => route.startsWith(prefix))

export async function consolePlugin(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const sessions = createConsoleSessions({
    operators: options.operators,
    clock: options.clock,
    publicUrl: options.config.consolePublicUrl,
    secret: options.csrfSecret,
  })
  const csrf = createCsrf({
    secret: options.csrfSecret,
    publicUrl: options.config.consolePublicUrl,
    purpose: 'console-csrf',
  })
  const signedIn = (request: FastifyRequest): Operator => {
    const operator = request.operatorVisitor?.user
    if (!operator) throw new PageError(403, 'Log in first', 'Your console session has ended. Log in again, then retry.')
    return operator
  }
  const c: OperatorConsole = {
    ...options,
    sessions,
    csrf,
    context(request, reply) {
      const binding = sessions.ensurePreSession(reply, request.operatorVisitor)
      return { operator: request.operatorVisitor.user, csrf: csrf.token(binding), path: request.url.split('?')[0] }
    },
    require(request, role) {
      const operator = signedIn(request)
      if (!roleSuffices(operator.role, role))
        throw new PageError(403, 'Not allowed', `Your role (${operator.role}) may not do this. Ask an admin.`)
      return operator
    },
    actor(request) {
      const operator = signedIn(request)
      return { kind: 'operator', operatorId: operator.id, email: operator.email, address: request.ip }
    },
    link: (path) => `${options.config.consolePublicUrl}${path}`,
  }

  await siteScope<Operator>(app, {
    name: 'console',
    bounds: CONSOLE_BOUNDS,
    visitorProperty: 'operatorVisitor',
    visitorLogField: 'operatorId',
    sessions,
    csrf,
    mailer: options.mailer,
    databaseOutage: options.databaseOutage,
    isPublicPage,
    page: (frame, title, content) => consolePage({ operator: frame.user, csrf: frame.csrf }, title, content),
    assets: {
      'console.css': { type: 'text/css; charset=utf-8', body: CONSOLE_CSS },
      'favicon.svg': { type: 'image/svg+xml', body: PORTAL_FAVICON },
    },
  })

  await loginRoutes(app, c)
  await setupRoutes(app, c)
  await overviewRoutes(app, c)
  await invitationsRoutes(app, c)
  await searchRoutes(app, c)
  await auditRoutes(app, c)
  await accountRoutes(app, c)
  await accountActionsRoutes(app, c)
  // WEBHOOKS=off: no webhooks section, and no route to disable an endpoint.
  if (options.webhooks) await accountWebhooksRoutes(app, c, options.webhooks)
  await requestsRoutes(app, c)
  await operatorsRoutes(app, c)
}
