// The operator console's place: under /console on the API listener, or on a listener of its own (CONSOLE_PORT,
// bound to CONSOLE_HOST) so that it is never on the public address. Either way CONSOLE_ALLOWED_NETWORKS answers
// anyone else with the API's own 404, so the console's pages (even its log-in) show nobody outside that it exists.
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../api/contract/errors.js'
import { sendError } from '../api/contract/error-handler.js'
import { createBaseApp } from '../api/platform/base-app.js'
import { networkMatcher } from '../kernel/networks.js'
import { consolePlugin } from '../sites/console/console.plugin.js'
import type { Services } from './services.js'

/** Registers the console under /console where it is on; on an app of the API listener only when it has no port. */
export async function registerConsole(
  app: FastifyInstance,
  services: Services,
  { home = false }: { home?: boolean } = {},
): Promise<void> {
  const { config, operators, planRequests, console: own } = services
  if (!config.console || !operators || !planRequests || !own) return
  const allowed = config.consoleAllowedNetworks && networkMatcher(config.consoleAllowedNetworks)
  await app.register(async (scope) => {
    // request.ip is the client's address once TRUST_PROXY has read X-Forwarded-For (base-app.ts).
    if (allowed)
      scope.addHook('onRequest', async (request, reply) => {
        if (allowed(request.ip)) return
        // The console's routes declare HTML answers; this one is the API's JSON, serialized as the API's 404 is.
        reply.serializer(JSON.stringify).type('application/json; charset=utf-8')
        return sendError(
          reply,
          new ApiError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`),
        )
      })
    await scope.register(consolePlugin, {
      prefix: '/console',
      config,
      db: services.db,
      clock: services.clock,
      accounts: services.accounts,
      usage: services.usage,
      audit: services.audit,
      operators,
      limiter: services.limiter,
      mailer: services.mailer,
      verification: services.verification,
      planRequests,
      invitations: services.portal?.invitations,
      csrfSecret: own.csrfSecret,
      databaseOutage: services.outages.database,
      twoFactor: services.twoFactor,
      teams: services.teams,
      webhooks: services.webhooks && {
        endpoints: services.webhooks.endpoints,
        deliveryLog: services.webhooks.deliveryLog,
      },
    })
    // On its own listener, `/` leads to the console (behind the same address check).
    if (home) scope.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console', 303))
  })
}

/** The console's own listener (CONSOLE_PORT): the console and nothing else. */
export async function buildConsoleApp(deps: {
  services: Services
  /** Pino options or `false`, as the API app's. */
  logger?: boolean | Record<string, unknown>
}): Promise<FastifyInstance> {
  const { services } = deps
  const { app, finish } = createBaseApp({
    config: services.config,
    limiter: services.limiter,
    sendBatcher: services.sendBatcher,
    logger: deps.logger,
    databaseOutage: services.outages.database,
  })
  await registerConsole(app, services, { home: true })
  finish()
  await app.ready()
  return app
}
