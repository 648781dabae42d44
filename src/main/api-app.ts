// The pet store application factory: builds a ready Fastify instance and never listens.
// Order: infrastructure (base app, shared schemas, OpenAPI), services, then routes, then the 405 catch-all.
import type { FastifyInstance } from 'fastify'
import type { Config } from '../kernel/config.js'
import type { AccountsRepository } from '../modules/accounts/accounts.repository.js'
import type { AuditRepository } from '../modules/audit/audit.repository.js'
import type { Verification } from '../modules/integrators/verification.js'
import type { Clock } from '../kernel/clock.js'
import { authPlugin } from '../api/guard/auth.js'
import { createBaseApp } from '../api/platform/base-app.js'
import type { CursorCodec } from '../api/contract/cursor.js'
import { deprecationHooks } from '../api/contract/deprecation.js'
import { registerIndexRoutes } from '../api/v1/index.routes.js'
import { openApiPlugin, petsDocument, registerDocsRoutes } from '../api/contract/openapi.js'
import { ErrorSchema } from '../api/contract/schemas.js'
import type { IdempotencyRepository } from '../modules/idempotency/idempotency.repository.js'
import { adminRoutes } from '../api/admin/admin.routes.js'
import { createRequestGuard, createUsageRecorder } from '../api/guard/rate-limit.hooks.js'
import type { RateLimiter } from '../modules/limits/rate-limiter.js'
import type { MessagesRepository } from '../modules/messages/messages.repository.js'
import type { PetsRepository } from '../modules/pets/pets.repository.js'
import type { OrdersRepository } from '../modules/orders/orders.repository.js'
import { flushUsageOnClose, type Usage } from '../modules/usage/usage.service.js'
import { registerOpsRoutes } from '../api/ops/ops.routes.js'
import { petsRoutes } from '../api/v1/pets.routes.js'
import { NewPetSchema, PET_EXAMPLES, PetSchema, PetsSchema, PetStatusSchema } from '../api/v1/pets.schemas.js'
import { ordersRoutes } from '../api/v1/orders.routes.js'
import { NewOrderSchema, OrderSchema, OrdersSchema, OrderStatusSchema } from '../api/v1/orders.schemas.js'
import { portalPlugin } from '../sites/portal/portal.plugin.js'
import { consolePlugin } from '../sites/console/console.plugin.js'
import { buildServices, type ServiceDependencies, type Services } from './services.js'

export interface AppDependencies extends ServiceDependencies {
  /** Services already built (to share them with the messages listener); built from the rest if absent. */
  services?: Services
  /** Pino options or `false`; defaults to the configured level, with the Authorization header redacted. */
  logger?: boolean | Record<string, unknown>
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    clock: Clock
    accounts: AccountsRepository
    audit: AuditRepository
    /** Verification links of integrators' addresses (the portal's sign-up, the console's Resend verification). */
    verification: Verification
    pets: PetsRepository
    orders: OrdersRepository
    messages: MessagesRepository
    cursors: CursorCodec
    idempotency: IdempotencyRepository
    limiter: RateLimiter
    /** The developer portal's services; undefined when PORTAL is off. */
    portal: Services['portal']
    /** The console's operators; undefined when the console is off. */
    operators: Services['operators']
    usage: Usage
    /** Requests for a higher plan; undefined when PORTAL is off. */
    planRequests: Services['planRequests']
    /** Outages of the database and mail server, logged once for the process (ops/outage-log.ts). */
    outages: Services['outages']
  }
}

/** Decorates an app with the services its routes use (the same objects on both listeners). */
export function decorateServices(app: FastifyInstance, services: Services): void {
  app.decorate('config', services.config)
  app.decorate('clock', services.clock)
  app.decorate('outages', services.outages)
  services.outages.logTo(app.log)
  app.decorate('accounts', services.accounts)
  app.decorate('audit', services.audit)
  app.decorate('verification', services.verification)
  app.decorate('pets', services.pets)
  app.decorate('orders', services.orders)
  app.decorate('messages', services.messages)
  app.decorate('cursors', services.cursors)
  app.decorate('idempotency', services.idempotency)
  app.decorate('limiter', services.limiter)
  app.decorate('portal', services.portal)
  app.decorate('operators', services.operators)
  app.decorate('usage', services.usage)
  app.decorate('planRequests', services.planRequests)
}

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const services = deps.services ?? (await buildServices(deps))
  const { config, clock, limiter } = services
  const { app, finish } = createBaseApp({
    config,
    limiter,
    sendBatcher: services.sendBatcher,
    apiPrefix: '/v1/',
    logger: deps.logger,
  })
  for (const schema of [
    ErrorSchema,
    PetStatusSchema,
    NewPetSchema,
    PetSchema,
    PetsSchema,
    OrderStatusSchema,
    NewOrderSchema,
    OrderSchema,
    OrdersSchema,
  ]) {
    app.addSchema(schema)
  }
  await app.register(openApiPlugin, petsDocument(config, PET_EXAMPLES))

  decorateServices(app, services)
  await registerOpsRoutes(app, services.ops, 'pets')
  await app.register(authPlugin, {
    accounts: services.accounts,
    environment: config.environment,
    clock: services.clock,
  })
  // A store this app made for itself is closed with it; a shared one is closed by its owner.
  if (!deps.services && !deps.rateLimitStore) app.addHook('onClose', () => services.rateLimitStore.close())
  // Services this app made for itself write their buffered usage counts when it closes (shared ones: the server).
  if (!deps.services) app.addHook('onClose', () => flushUsageOnClose(app, services))
  if (!deps.services) app.addHook('onClose', () => services.stopListening())

  // The pet store under /v1: the pets and the store's orders. Every operation is authenticated and counted against
  // its account's quota before anything else (sunset, body parsing, validation) can answer. One hook for all of
  // it: each async hook costs a promise and a turn of the microtask queue on every request.
  const deprecation = deprecationHooks({ clock, publicUrl: config.publicUrl })
  const guard = createRequestGuard({ authenticate: app.authenticate, limiter })
  const recordUsage = createUsageRecorder({ usage: services.usage, clock })
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', async function petStoreGate(request, reply) {
        deprecation.announce(request, reply)
        await guard(request, reply)
        deprecation.enforceSunset(request)
      })
      // Usage by outcome: counted when the answer is sent (its status known), not at admission.
      v1.addHook('onResponse', recordUsage)
      await v1.register(petsRoutes)
      await v1.register(ordersRoutes)
    },
    { prefix: '/v1' },
  )
  await app.register(adminRoutes, { prefix: '/admin', token: services.adminToken })
  // The developer portal (HTML pages under /portal), on the same listener, outside /v1.
  if (services.portal) {
    await app.register(portalPlugin, {
      prefix: '/portal',
      config,
      clock,
      accounts: services.accounts,
      usage: services.usage,
      audit: services.audit,
      metrics: services.metrics.portal,
      ...services.portal,
    })
  }
  // The operator console (HTML pages under /console), where the portal is on unless CONSOLE=off.
  if (services.portal && services.operators && services.console) {
    const { operators, audit, accounts, usage, limiter: rateLimiter } = services
    await app.register(consolePlugin, {
      prefix: '/console',
      config,
      db: services.db,
      clock,
      accounts,
      usage,
      audit,
      operators,
      limiter: rateLimiter,
      mailer: services.portal.mailer,
      verification: services.verification,
      csrfSecret: services.console.csrfSecret,
    })
  }
  await registerDocsRoutes(app, '/v1/openapi.json')
  registerIndexRoutes(app, { openapi: '/v1/openapi.json', docs: '/docs' })
  finish()

  await app.ready()
  return app
}
