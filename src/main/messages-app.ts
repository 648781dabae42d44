// The messages listener (spec 4.4): its own address (no version segment), its own OpenAPI document and docs,
// and the same keys, errors and rate limits as the pet store (the services are shared).
import type { FastifyInstance } from 'fastify'
import { apiContext, type AppDependencies } from './api-app.js'
import { authPlugin, createAuthenticator } from '../api/guard/auth.js'
import { createBaseApp } from '../api/platform/base-app.js'
import { messagesDocument, openApiPlugin, registerDocsRoutes } from '../api/contract/openapi.js'
import { ErrorSchema } from '../api/contract/schemas.js'
import { createRequestGuard, createUsageRecorder } from '../api/guard/rate-limit.hooks.js'
import { registerOpsRoutes } from '../api/ops/ops.routes.js'
import { buildServices } from './services.js'
import { messagesRoutes } from '../api/messages/messages.routes.js'
import {
  MESSAGE_EXAMPLES,
  MESSAGES_BODY_LIMIT_BYTES,
  MessageSchema,
  NewMessageSchema,
} from '../api/messages/messages.schemas.js'

export async function buildMessagesApp(deps: AppDependencies): Promise<FastifyInstance> {
  const services = deps.services ?? (await buildServices(deps))
  const { config, limiter } = services
  const { app, finish } = createBaseApp({
    config,
    limiter,
    sendBatcher: services.sendBatcher,
    apiPrefix: '/messages',
    bodyLimit: MESSAGES_BODY_LIMIT_BYTES,
    logger: deps.logger,
    databaseOutage: services.outages.database,
  })
  // Services this app built for itself are closed with it; given ones, by whoever built them (the server).
  if (!deps.services) app.addHook('onClose', () => services.close())
  services.outages.logTo(app.log)
  for (const schema of [ErrorSchema, NewMessageSchema, MessageSchema]) app.addSchema(schema)
  await app.register(openApiPlugin, messagesDocument(config, MESSAGE_EXAMPLES))

  await registerOpsRoutes(app, services.ops, 'messages')
  await app.register(authPlugin)
  const authenticate = createAuthenticator({
    accounts: services.accounts,
    environment: config.environment,
    clock: services.clock,
  })

  await app.register(async (scope) => {
    scope.addHook('onRequest', createRequestGuard({ authenticate, limiter }))
    scope.addHook('onResponse', createUsageRecorder({ usage: services.usage, clock: services.clock }))
    await scope.register(messagesRoutes, { api: apiContext(services) })
  })
  await registerDocsRoutes(app, '/openapi.json')
  finish()

  await app.ready()
  return app
}
