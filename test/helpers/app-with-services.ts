// An app on services built beside it, as the server builds them, for a test that reaches both: the app does not
// close services it was given, so the test closes them after the app.
import type { FastifyInstance } from 'fastify'
import { buildApp, type AppDependencies } from '../../src/main/api-app.js'
import { buildServices, type Services } from '../../src/main/services.js'

export async function appWithServices(deps: AppDependencies): Promise<{ app: FastifyInstance; services: Services }> {
  const services = await buildServices(deps)
  return { app: await buildApp({ ...deps, services }), services }
}
