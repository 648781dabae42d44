// Schemas shared by every operation: the Error body (spec 2.5) and the helpers that reference shared schemas.
import { Type, type Static, type TSchema } from 'typebox'
import { ERROR_CODES } from './errors.js'

export const ErrorSchema = Type.Object(
  {
    code: Type.String({ description: 'Machine-readable error code.', enum: Object.keys(ERROR_CODES) }),
    message: Type.String({ description: 'Human-readable description.' }),
    status: Type.Integer({ description: 'The HTTP status code of the response.' }),
  },
  { $id: 'Error', title: 'Error', additionalProperties: false },
)

/** A `$ref` to a schema registered with `app.addSchema`, typed as the schema it points to. */
export function ref<T extends TSchema>(schema: T) {
  const id = (schema as { $id?: unknown }).$id
  if (typeof id !== 'string') throw new Error('ref() needs a schema with an $id')
  return Type.Unsafe<Static<T>>({ $ref: id })
}

/** Headers every response of the API carries (rate limits: spec 8.3 and draft-ietf-httpapi-ratelimit-headers). */
const COMMON_HEADERS: Record<string, TSchema> = {
  'X-Request-Id': Type.String({ description: 'The request id (yours if well-formed, else generated); quote it when reporting a problem.' }),
  'X-RateLimit-Limit': Type.Integer({ description: 'Quota of the window with the fewest requests left (ties: the shorter window).' }),
  'X-RateLimit-Remaining': Type.Integer({ description: 'Requests left in that window, this one counted; never below 0.' }),
  'X-RateLimit-Reset': Type.Integer({ description: 'When that window resets, as Unix epoch seconds.' }),
  'RateLimit-Policy': Type.String({ description: 'Every window that applies, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`.' }),
  RateLimit: Type.String({ description: 'The binding window: `"minute";r=<remaining>;t=<seconds to reset>`.' }),
}

/** A JSON response with a description and documented headers, in the form Fastify and OpenAPI both read. */
export function jsonResponse(description: string, schema: TSchema, headers: Record<string, TSchema> = {}) {
  return { description, headers: { ...COMMON_HEADERS, ...headers }, content: { 'application/json': { schema } } }
}

export function errorResponse(description: string, headers: Record<string, TSchema> = {}) {
  return jsonResponse(description, ref(ErrorSchema), headers)
}

export const tooManyRequests = () =>
  errorResponse('Rate limit exceeded (`rate_limit_exceeded`) or the key is temporarily banned (`temporarily_banned`).', {
    'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds to wait before retrying.' }),
  })

/** For operations that take no query parameters: any parameter is unknown, and refused with a 400. */
export const NoQuery = Type.Object({}, { additionalProperties: false })

export const unauthorizedResponse = () =>
  errorResponse('Missing or invalid API key, or an `Authorization` header not of the form `Bearer <API_KEY>` (see `code`).', {
    'WWW-Authenticate': Type.String({ description: 'Bearer challenge (RFC 6750).' }),
  })

export const internalResponse = () => errorResponse('Unexpected failure; nothing internal is shown.')
