// The application factory: builds a ready Fastify instance from its dependencies and never listens.
// Order: infrastructure (errors, parsing, ids, docs), then services, then routes, then the 405 catch-all.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { createAccountsRepository, type AccountsRepository } from './accounts/accounts.repository.js'
import { systemClock, type Clock } from './clock.js'
import type { Config } from './config.js'
import type { Database } from './db/schema.js'
import { loadOrCreateSecret } from './db/settings.js'
import { authPlugin } from './http/auth.js'
import { createCursorCodec, type CursorCodec } from './http/cursor.js'
import { deprecationHooks } from './http/deprecation.js'
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './http/error-handler.js'
import { registerJsonBodyParser } from './http/json-body.js'
import { collectRoutes, registerMethodNotAllowed } from './http/method-not-allowed.js'
import { openApiPlugin, registerDocsRoutes } from './http/openapi.js'
import { refuseRepeatedQueryParameters } from './http/query-guard.js'
import { requestIdFrom } from './http/request-id.js'
import { RequestLogController } from './http/request-log.js'
import { ErrorSchema } from './http/schemas.js'
import { buildValidatorCompiler } from './http/validation.js'
import { createIdempotencyRepository, type IdempotencyRepository } from './idempotency/idempotency.repository.js'
import { ADMIN_TOKEN_SETTING, adminRoutes } from './limits/admin.routes.js'
import { createMemoryStore } from './limits/memory.store.js'
import type { RateLimitStore } from './limits/rate-limit.store.js'
import { createAddressLimitHook, createRequestGuard } from './limits/rate-limit.hooks.js'
import { createRateLimiter, type RateLimiter } from './limits/rate-limiter.js'
import { createPetsRepository, type PetsRepository } from './pets/pets.repository.js'
import { petsRoutes } from './pets/pets.routes.js'
import { NewPetSchema, PetSchema, PetsSchema, PetStatusSchema } from './pets/pets.schemas.js'

export const BODY_LIMIT_BYTES = 16 * 1024

export interface AppDependencies {
  config: Config
  db: Kysely<Database>
  clock?: Clock
  /** Where rate-limit counters and bans live; in this process's memory by default. Closed with the app. */
  rateLimitStore?: RateLimitStore
  /** Pino options or `false`; defaults to the configured level, with the Authorization header redacted. */
  logger?: boolean | Record<string, unknown>
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    clock: Clock
    accounts: AccountsRepository
    pets: PetsRepository
    cursors: CursorCodec
    idempotency: IdempotencyRepository
    limiter: RateLimiter
  }
}

/** How often expired Idempotency-Key records are deleted. */
const IDEMPOTENCY_PURGE_EVERY_MS = 10 * 60 * 1000

export async function buildApp({ config, db, clock = systemClock, rateLimitStore = createMemoryStore(), logger }: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ?? { level: config.logLevel, redact: ['req.headers.authorization'] },
    logController: new RequestLogController(),
    genReqId: requestIdFrom,
    bodyLimit: BODY_LIMIT_BYTES,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    return503OnClosing: true,
    // Explicit server timeouts: a slow client cannot hold a request open forever.
    requestTimeout: 30_000,
    keepAliveTimeout: 72_000,
    // Our own validator factory (see http/validation.ts); Fastify's types want Ajv's compile signature.
    schemaController: { compilersFactory: { buildValidator: buildValidatorCompiler as never } },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Infrastructure
  installErrorHandling(app)
  registerJsonBodyParser(app)
  const routes = collectRoutes(app, '/v1/')
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  app.addHook('preValidation', refuseRepeatedQueryParameters)
  const limiter = createRateLimiter({ store: rateLimitStore, clock, limits: config })
  app.addHook('onRequest', createAddressLimitHook(limiter))
  for (const schema of [ErrorSchema, PetStatusSchema, NewPetSchema, PetSchema, PetsSchema]) app.addSchema(schema)
  await app.register(openApiPlugin, { config })

  // Services, built once
  const accounts = createAccountsRepository({ db, clock })
  app.decorate('config', config)
  app.decorate('clock', clock)
  app.decorate('accounts', accounts)
  app.decorate('pets', createPetsRepository({ db, clock }))
  app.decorate('cursors', createCursorCodec({ secret: await loadOrCreateSecret(db, 'cursor_secret') }))
  app.decorate('limiter', limiter)
  const idempotency = createIdempotencyRepository({ db, clock })
  app.decorate('idempotency', idempotency)
  await app.register(authPlugin, { accounts, environment: config.environment })
  const purge = setInterval(() => {
    idempotency.purgeExpired().catch((err: unknown) => app.log.error({ err }, 'purging idempotency keys failed'))
  }, IDEMPOTENCY_PURGE_EVERY_MS).unref()
  app.addHook('onClose', async () => {
    clearInterval(purge)
    await rateLimitStore.close()
  })

  // Routes: the pet store under /v1. Every operation is authenticated and counted against its account's
  // quota before anything else (sunset, body parsing, validation) can answer.
  const deprecation = deprecationHooks({ clock, publicUrl: config.publicUrl })
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', deprecation.announce)
      v1.addHook('onRequest', createRequestGuard({ authenticate: app.authenticate, limiter }))
      v1.addHook('onRequest', deprecation.enforceSunset)
      await v1.register(petsRoutes)
    },
    { prefix: '/v1' },
  )
  await app.register(adminRoutes, { prefix: '/admin', token: await loadOrCreateSecret(db, ADMIN_TOKEN_SETTING) })
  await registerDocsRoutes(app)
  registerMethodNotAllowed(app, routes)

  await app.ready()
  return app
}
