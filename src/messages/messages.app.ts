// The messages listener (spec 4.4): its own address (no version segment), its own OpenAPI document and docs,
// and the same keys, errors and rate limits as the pet store (the services are shared).
import type { FastifyInstance } from 'fastify'
import { decorateServices, type AppDependencies } from '../app.js'
import { authPlugin } from '../http/auth.js'
import { createBaseApp } from '../http/base-app.js'
import { messagesDocument, openApiPlugin, registerDocsRoutes } from '../http/openapi.js'
import { ErrorSchema } from '../http/schemas.js'
import { createRequestGuard } from '../limits/rate-limit.hooks.js'
import { registerOpsRoutes } from '../ops/ops.routes.js'
import { buildServices } from '../services.js'
import { messagesRoutes } from './messages.routes.js'
import { MessageSchema, NewMessageSchema } from './messages.schemas.js'

/** 4,096 characters can take 12 bytes each as JSON (`\ud83d\udc36` escapes), so the body may be up to ~48 KiB. */
export const MESSAGES_BODY_LIMIT_BYTES = 64 * 1024

export async function buildMessagesApp(deps: AppDependencies): Promise<FastifyInstance> {
  const services = deps.services ?? (await buildServices(deps))
  const { config, limiter } = services
  const { app, finish } = createBaseApp({ config, limiter, sendBatcher: services.sendBatcher, apiPrefix: '/messages', bodyLimit: MESSAGES_BODY_LIMIT_BYTES, logger: deps.logger })
  for (const schema of [ErrorSchema, NewMessageSchema, MessageSchema]) app.addSchema(schema)
  await app.register(openApiPlugin, messagesDocument(config))

  decorateServices(app, services)
  await registerOpsRoutes(app, services, 'messages')
  await app.register(authPlugin, { accounts: services.accounts, environment: config.environment })
  if (!deps.services && !deps.rateLimitStore) app.addHook('onClose', () => services.rateLimitStore.close())

  await app.register(async (scope) => {
    scope.addHook('onRequest', createRequestGuard({ authenticate: app.authenticate, limiter }))
    await scope.register(messagesRoutes)
  })
  await registerDocsRoutes(app, '/openapi.json')
  finish()

  await app.ready()
  return app
}
