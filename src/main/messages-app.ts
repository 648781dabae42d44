// The messages listener (spec 4.4): its own address (no version segment), its own OpenAPI document and docs,
// and the same keys, errors and rate limits as the pet store (the services are shared).
import type { FastifyInstance } from 'fastify'
import { decorateServices, type AppDependencies } from './api-app.js'
import { authPlugin } from '../api/guard/auth.js'
import { createBaseApp } from '../api/platform/base-app.js'
import { messagesDocument, openApiPlugin, registerDocsRoutes } from '../api/contract/openapi.js'
import { ErrorSchema } from '../api/contract/schemas.js'
import { flushUsageOnClose } from '../modules/usage/usage.service.js'
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
  })
  for (const schema of [ErrorSchema, NewMessageSchema, MessageSchema]) app.addSchema(schema)
  await app.register(openApiPlugin, messagesDocument(config, MESSAGE_EXAMPLES))

  decorateServices(app, services)
  await registerOpsRoutes(app, services.ops, 'messages')
  await app.register(authPlugin, {
    accounts: services.accounts,
    environment: config.environment,
    clock: services.clock,
  })
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
