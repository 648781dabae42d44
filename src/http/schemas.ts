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

/** A JSON response with a description and documented headers, in the form Fastify and OpenAPI both read. */
export function jsonResponse(description: string, schema: TSchema, headers: Record<string, TSchema> = {}) {
  return { description, headers, content: { 'application/json': { schema } } }
}

export function errorResponse(description: string, headers: Record<string, TSchema> = {}) {
  return jsonResponse(description, ref(ErrorSchema), headers)
}
