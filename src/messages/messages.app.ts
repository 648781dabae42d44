// The messages listener (spec 4.4): its own address (no version segment), its own OpenAPI document and docs,
// and the same keys, errors and rate limits as the pet store (the services are shared).
import type { FastifyInstance } from 'fastify'
import { decorateServices, type AppDependencies } from '../app.js'
import { authPlugin } from '../http/auth.js'
import { createBaseApp } from '../http/base-app.js'
import { messagesDocument, openApiPlugin, registerDocsRoutes } from '../http/openapi.js'
import { ErrorSchema } from '../http/schemas.js'
import { flushUsageOnClose } from '../usage/usage.service.js'
import { createRequestGuard, createUsageRecorder } from '../limits/rate-limit.hooks.js'
import { registerOpsRoutes } from '../ops/ops.routes.js'
import { buildServices } from '../services.js'
import { messagesRoutes } from './messages.routes.js'
import { MESSAGE_EXAMPLES, MESSAGES_BODY_LIMIT_BYTES, MessageSchema, NewMessageSchema } from './messages.schemas.js'

export async function buildMessagesApp(deps: AppDependencies): Promise<FastifyInstance> {
  const services = deps.services ?? (await buildServices(deps))
  const { config, limiter } = services
  const { app, finish } = createBaseApp({ config, limiter, sendBatcher: services.sendBatcher, apiPrefix: '/messages', bodyLimit: MESSAGES_BODY_LIMIT_BYTES, logger: deps.logger })
  for (const schema of [ErrorSchema, NewMessageSchema, MessageSchema]) app.addSchema(schema)
  await app.register(openApiPlugin, messagesDocument(config, MESSAGE_EXAMPLES))

  decorateServices(app, services)
  await registerOpsRoutes(app, services, 'messages')
  await app.register(authPlugin, { accounts: services.accounts, environment: config.environment, clock: services.clock })
  if (!deps.services && !deps.rateLimitStore) app.addHook('onClose', () => services.rateLimitStore.close())
  if (!deps.services) app.addHook('onClose', () => flushUsageOnClose(app, services))
  if (!deps.services) app.addHook('onClose', () => services.stopListening())

  await app.register(async (scope) => {
    scope.addHook('onRequest', createRequestGuard({ authenticate: app.authenticate, limiter }))
    scope.addHook('onResponse', createUsageRecorder({ usage: services.usage, clock: services.clock }))
    await scope.register(messagesRoutes)
  })
  await registerDocsRoutes(app, '/openapi.json')
  finish()

  await app.ready()
  return app
}
