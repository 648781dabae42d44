// Turns the first Ajv error of a failed validation into an ApiError whose message names the field.
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { IDEMPOTENCY_KEY_MESSAGE } from './idempotency-key.js'
import { ApiError } from './errors.js'

type Part = 'body' | 'querystring' | 'params' | 'headers' | string

function fieldName(error: FastifySchemaValidationError): string {
  const path = error.instancePath.split('/').slice(1).join('.')
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'required') return [path, params.missingProperty].filter(Boolean).join('.')
  if (error.keyword === 'additionalProperties') return [path, params.additionalProperty].filter(Boolean).join('.')
  return path
}

function describe(error: FastifySchemaValidationError): string {
  const params = error.params as Record<string, unknown>
  const schema = (error as { parentSchema?: { description?: string } }).parentSchema
  switch (error.keyword) {
    case 'required':
      return 'is required'
    case 'additionalProperties':
      return 'is not a known field'
    case 'type':
      return `must be ${params.type === 'integer' ? 'an integer' : `of type ${String(params.type)}`}`
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`
    case 'minLength':
      return `must be at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'} long`
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters long`
    case 'minimum':
      return `must be ≥ ${String(params.limit)}`
    case 'maximum':
      return `must be ≤ ${String(params.limit)}`
    case 'pattern':
      return schema?.description ? `is invalid: ${schema.description}` : `must match ${String(params.pattern)}`
    default:
      return error.message ?? 'is invalid'
  }
}

export function validationError(part: Part, errors: FastifySchemaValidationError[]): ApiError {
  const first = errors[0]
  if (!first) return new ApiError('bad_request', 'The request is invalid.')
  const field = fieldName(first)
  if (part === 'body') {
    if (field === '')
      return new ApiError(
        'invalid_body',
        `The request body ${describe(first).replace('of type object', 'a JSON object')}.`,
      )
    return new ApiError('invalid_body', `Body field '${field}' ${describe(first)}.`)
  }
  // The documented Idempotency-Key schema is the parser's rule: its refusal keeps the parser's code and message.
  if (part === 'headers' && field === 'idempotency-key')
    return new ApiError('invalid_idempotency_key', IDEMPOTENCY_KEY_MESSAGE)
  const kind = part === 'params' ? 'Path parameter' : part === 'headers' ? 'Header' : 'Query parameter'
  return new ApiError('invalid_parameter', `${kind} '${field}' ${describe(first)}.`)
}
