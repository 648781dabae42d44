// Schemas shared by every operation: the Error body (spec 2.5) and the helpers that reference shared schemas.
import { Type, type Static, type TSchema } from 'typebox'
import { ERROR_CODES, type ErrorCode } from './errors.js'
import { ERROR_CODES_KEY } from './openapi-contract.js'

export const ErrorSchema = Type.Object(
  {
    code: Type.String({ description: 'Machine-readable error code.', enum: Object.keys(ERROR_CODES) }),
    message: Type.String({ description: 'Human-readable description.' }),
    status: Type.Integer({ description: 'The HTTP status code of the response.' }),
  },
  { $id: 'Error', title: 'Error', additionalProperties: false },
)

/**
 * A 64-bit integer, exact over the whole signed range: validation hands it on as a bigint (http/validation.ts),
 * the serializer writes it as a JSON integer. Ids, path parameters and body fields alike.
 */
export function int64(description: string, bounds: { minimum?: number } = {}) {
  return Type.Unsafe<bigint>({ type: 'integer', format: 'int64', ...bounds, description })
}

/**
 * What the validator holds every string of a request to (path, query and body; http/validation.ts): well-formed
 * Unicode without U+0000. Said in the description of each such string, with a pattern for the U+0000 half (a
 * pattern cannot say "no unpaired surrogate": under the `u` flag a lone surrogate is a code point like any other).
 * `\x00`, not `\u0000`: one escape that ECMA-262 (with or without `u`), RE2, Java and Python all read alike.
 */
const TEXT_RULE = 'Must not contain U+0000 (NUL) or an unpaired surrogate: the text must be well-formed Unicode.'
const NO_NUL = '^[^\\x00]*$'
/** The same, with at least one character that is not white space (no lookahead: not every pattern engine has it). */
const NO_NUL_NOT_BLANK = '^[^\\x00]*[^\\s\\x00][^\\x00]*$'

/**
 * A string of a request: `description` plus the text rule, the pattern that says it; `notBlank`: not only white space.
 */
export function requestText(
  description: string,
  options: { minLength?: number; maxLength?: number; format?: string; notBlank?: boolean } = {},
) {
  const { notBlank, ...bounds } = options
  return Type.String({
    ...bounds,
    pattern: notBlank ? NO_NUL_NOT_BLANK : NO_NUL,
    description: `${description} ${TEXT_RULE}`,
  })
}

/** A `$ref` to a schema registered with `app.addSchema`, typed as the schema it points to. */
export function ref<T extends TSchema>(schema: T) {
  const id = (schema as { $id?: unknown }).$id
  if (typeof id !== 'string') throw new Error('ref() needs a schema with an $id')
  return Type.Unsafe<Static<T>>({ $ref: id })
}

/**
 * A JSON response with a description and its own headers, in the form Fastify and OpenAPI both read. What every
 * response carries (request id, limit headers, Retry-After of a 429 or 503, deprecation) is added to the document
 * by http/openapi-contract.ts, for every operation at once.
 */
export function jsonResponse(description: string, schema: TSchema, headers: Record<string, TSchema> = {}) {
  return { description, headers, content: { 'application/json': { schema } } }
}

/** An Error response; `codes`: the error codes it can carry (default: every code of its status), shown as examples. */
export function errorResponse(description: string, headers: Record<string, TSchema> = {}, codes?: ErrorCode[]) {
  const response = jsonResponse(description, ref(ErrorSchema), headers)
  if (codes) Object.assign(response.content['application/json'], { [ERROR_CODES_KEY]: codes })
  return response
}

/**
 * The refusals of an operation that takes a JSON body (createPet, placeOrder, POST /messages): what the body parser,
 * the validator and the Idempotency-Key check answer before the handler runs. `limitBytes`: the listener's body limit.
 */
export function jsonBodyRefusals(description400: string, limitBytes: number) {
  return {
    400: errorResponse(description400, {}, [
      'invalid_body',
      'invalid_json',
      'invalid_content_type',
      'invalid_idempotency_key',
      'invalid_parameter',
      'bad_request',
    ]),
    413: errorResponse(`The body is larger than ${limitBytes / 1024} KiB.`, {}, ['payload_too_large']),
    415: errorResponse('The body has a `Content-Encoding` other than `identity`.', {}, [
      'unsupported_content_encoding',
    ]),
  }
}

/**
 * A response without a body (204); `type: 'null'` leaves out `content`. Its headers are added like every response's.
 */
export function emptyResponse(description: string) {
  return { type: 'null', description, headers: {} }
}

export const tooManyRequests = () =>
  errorResponse(
    'Rate limit exceeded (`rate_limit_exceeded`) or the key is temporarily banned (`temporarily_banned`).',
    {
      'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds to wait before retrying.' }),
    },
  )

/** For operations that take no query parameters: any parameter is unknown, and refused with a 400. */
export const NoQuery = Type.Object({}, { additionalProperties: false })

export const unauthorizedResponse = () =>
  errorResponse(
    'Missing or invalid API key, or an `Authorization` header not of the form `Bearer <API_KEY>` (see `code`).',
    {
      'WWW-Authenticate': Type.String({ description: 'Bearer challenge (RFC 6750).' }),
    },
  )

export const internalResponse = () => errorResponse('Unexpected failure; nothing internal is shown.')
