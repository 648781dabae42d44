// `GET /` and `GET /v1`: where a newcomer (or a crawler) lands first. No key needed; like the OpenAPI document
// they are counted against the client address, so they carry its rate-limit headers. Not in the OpenAPI document:
// they describe the document, not the API.
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { packageInfo } from '../../kernel/version.js'
import { jsonResponse, tooManyRequests } from '../contract/schemas.js'

const IndexSchema = Type.Object(
  {
    name: Type.String({ description: 'The service.' }),
    version: Type.String({ description: 'Its version (package.json).' }),
    links: Type.Object({
      openapi: Type.String({ description: 'The OpenAPI 3.1 document.' }),
      docs: Type.String({ description: 'The interactive reference.' }),
    }),
  },
  { additionalProperties: false },
)

export function registerIndexRoutes(app: FastifyInstance, links: { openapi: string; docs: string }): void {
  const body = { name: packageInfo().name, version: packageInfo().version, links }
  const schema = {
    hide: true,
    response: {
      200: jsonResponse('Where the API and its documentation are.', IndexSchema),
      429: tooManyRequests(),
    },
  }
  for (const url of ['/', '/v1']) app.get(url, { schema, config: { rateLimit: 'address' } }, async () => body)
}
