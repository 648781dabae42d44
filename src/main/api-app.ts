// The pet store application factory: builds a ready Fastify instance and never listens.
// Order: infrastructure (base app, shared schemas, OpenAPI), services, then routes, then the 405 catch-all.
import type { FastifyInstance } from 'fastify'
import { authPlugin, createAuthenticator } from '../api/guard/auth.js'
import type { ApiContext } from '../api/api.context.js'
import { createBaseApp } from '../api/platform/base-app.js'
import { deprecationHooks } from '../api/contract/deprecation.js'
import { registerIndexRoutes } from '../api/v1/index.routes.js'
import { eventsRoutes } from '../api/v1/events.routes.js'
import { webhookDeliveriesRoutes } from '../api/v1/webhook-deliveries.routes.js'
import { webhookEndpointsRoutes } from '../api/v1/webhook-endpoints.routes.js'
import {
  DeliveryAttemptsSchema,
  EventSchema,
  EventsSchema,
  NewWebhookEndpointSchema,
  WebhookEndpointPatchSchema,
  WebhookEndpointSchema,
  WebhookEndpointsSchema,
  WebhookEndpointWithSecretSchema,
} from '../api/v1/webhooks.schemas.js'
import { openApiPlugin, petsDocument, registerDocsRoutes } from '../api/contract/openapi.js'
import { ErrorSchema } from '../api/contract/schemas.js'
import { adminRoutes } from '../api/admin/admin.routes.js'
import { createRequestGuard, createUsageRecorder } from '../api/guard/rate-limit.hooks.js'
import { registerOpsRoutes } from '../api/ops/ops.routes.js'
import { petsRoutes } from '../api/v1/pets.routes.js'
import { NewPetSchema, PET_EXAMPLES, PetSchema, PetsSchema, PetStatusSchema } from '../api/v1/pets.schemas.js'
import { ordersRoutes } from '../api/v1/orders.routes.js'
import { NewOrderSchema, OrderSchema, OrdersSchema, OrderStatusSchema } from '../api/v1/orders.schemas.js'
import { portalPlugin } from '../sites/portal/portal.plugin.js'
import { registerConsole } from './console-app.js'
import { buildServices, type ServiceDependencies, type Services } from './services.js'

export interface AppDependencies extends ServiceDependencies {
  /** Services already built (to share them with the messages listener); built from the rest if absent. */
  services?: Services
  /** Pino options or `false`; defaults to the configured level, with the Authorization header redacted. */
  logger?: boolean | Record<string, unknown>
}

/** The API's context (api/api.context.ts): the services its routes use, the same objects on both listeners. */
export function apiContext(services: Services): ApiContext {
  const { config, clock, accounts, audit, usage, limiter, pets, orders, messages, cursors, idempotency } = services
  const webhooks = services.webhooks && {
    endpoints: services.webhooks.endpoints,
    events: services.webhooks.events,
    deliveryLog: services.webhooks.deliveryLog,
  }
  return { config, clock, accounts, audit, usage, limiter, pets, orders, messages, cursors, idempotency, webhooks }
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
    databaseOutage: services.outages.database,
  })
  // Services this app built for itself are closed with it; given ones, by whoever built them (the server).
  if (!deps.services) app.addHook('onClose', () => services.close())
  services.outages.logTo(app.log)
  const api = apiContext(services)
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
    NewWebhookEndpointSchema,
    WebhookEndpointPatchSchema,
    WebhookEndpointSchema,
    WebhookEndpointWithSecretSchema,
    WebhookEndpointsSchema,
    EventSchema,
    EventsSchema,
    DeliveryAttemptsSchema,
  ]) {
    app.addSchema(schema)
  }
  await app.register(openApiPlugin, petsDocument(config, PET_EXAMPLES))

  await registerOpsRoutes(app, services.ops, 'pets')
  await app.register(authPlugin)
  const authenticate = createAuthenticator({ accounts: services.accounts, environment: config.environment, clock })

  // The pet store under /v1: the pets and the store's orders. Every operation is authenticated and counted against
  // its account's quota before anything else (sunset, body parsing, validation) can answer. One hook for all of
  // it: each async hook costs a promise and a turn of the microtask queue on every request.
  const deprecation = deprecationHooks({ clock, publicUrl: config.publicUrl })
  const guard = createRequestGuard({ authenticate, limiter })
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
      await v1.register(petsRoutes, { api })
      await v1.register(ordersRoutes, { api })
      if (api.webhooks) {
        await v1.register(webhookEndpointsRoutes, { api })
        await v1.register(webhookDeliveriesRoutes, { api })
        await v1.register(eventsRoutes, { api })
      }
    },
    { prefix: '/v1' },
  )
  await app.register(adminRoutes, { prefix: '/admin', token: services.adminToken, api })
  // The developer portal (HTML pages under /portal), on the same listener, outside /v1.
  if (services.portal) {
    await app.register(portalPlugin, {
      prefix: '/portal',
      config,
      clock,
      accounts: services.accounts,
      usage: services.usage,
      audit: services.audit,
      twoFactor: services.twoFactor,
      teams: services.teams,
      metrics: services.metrics.portal,
      databaseOutage: services.outages.database,
      webhooks: services.webhooks && {
        endpoints: services.webhooks.endpoints,
        deliveryLog: services.webhooks.deliveryLog,
      },
      ...services.portal,
    })
  }
  // The operator console (HTML pages under /console) where it is on and has no listener of its own (console-app.ts).
  if (config.consolePort === undefined) await registerConsole(app, services)
  await registerDocsRoutes(app, '/v1/openapi.json')
  registerIndexRoutes(app, { openapi: '/v1/openapi.json', docs: '/docs' })
  finish()

  await app.ready()
  return app
}
