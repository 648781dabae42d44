// Request validation: one Ajv per kind of input, compiled from the same TypeBox schemas that feed OpenAPI.
// - Bodies are validated strictly: no type coercion, no defaults, unknown fields are errors.
// - Query strings and path parameters arrive as text, so they are coerced (and defaults applied).
// - `{type: 'integer', format: 'int64'}` is checked exactly over the whole signed 64-bit range and handed
//   to the handler as a bigint: JSON numbers above 2^53 cannot be trusted once they are JavaScript numbers.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const INT64_KEYWORD = 'x-int64'

/**
 * Parses a JSON number, a bigint from the body parser, or (only with `acceptText`: path/query) text as an
 * exact int64; undefined if not one. A JSON string such as `"1"` in a body is a wrong type, not a number.
 */
export function toInt64(value: unknown, acceptText = true): bigint | undefined {
  let n: bigint
  if (typeof value === 'bigint') n = value
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value)
  else if (acceptText && typeof value === 'string' && /^-?\d{1,19}$/.test(value)) n = BigInt(value)
  else return undefined
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined
}

function addInt64Keyword(ajv: Ajv, acceptText: boolean): void {
  ajv.addKeyword({
    keyword: INT64_KEYWORD,
    modifying: true,
    errors: true,
    schemaType: 'object',
    validate: function check(
      range: { minimum?: number },
      data: unknown,
      _parent?: unknown,
      ctx?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
    ): boolean {
      const n = toInt64(data, acceptText)
      const min = range.minimum === undefined ? INT64_MIN : BigInt(range.minimum)
      if (n === undefined || n < min) {
        const message = `must be an integer from ${min} to ${INT64_MAX}`
        ;(check as unknown as { errors: Partial<ErrorObject>[] }).errors = [{ keyword: INT64_KEYWORD, message, params: {} }]
        return false
      }
      if (ctx?.parentData) ctx.parentData[ctx.parentDataProperty] = n
      return true
    },
  })
}

/** Replaces every int64 integer node by the exact keyword; leaves the original schema (used by OpenAPI) untouched. */
function withExactInt64(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withExactInt64)
  if (schema === null || typeof schema !== 'object') return schema
  const node = schema as Record<string, unknown>
  if (node.type === 'integer' && node.format === 'int64') {
    const { type: _t, format: _f, minimum, maximum: _max, ...rest } = node
    return { ...rest, [INT64_KEYWORD]: minimum === undefined ? {} : { minimum } }
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withExactInt64(v)]))
}

function createAjv(options: { coerce: boolean }): Ajv {
  const ajv = new Ajv({
    coerceTypes: options.coerce,
    useDefaults: options.coerce,
    removeAdditional: false,
    allErrors: false,
    verbose: true,
    strict: false,
  })
  addFormats(ajv)
  addInt64Keyword(ajv, options.coerce)
  return ajv
}

/** Builds the validator compiler for the app's schema controller, with the shared schemas registered. */
export function buildValidatorCompiler(externalSchemas: Record<string, unknown>): FastifySchemaCompiler<unknown> {
  const bodyAjv = createAjv({ coerce: false })
  const textAjv = createAjv({ coerce: true })
  for (const schema of Object.values(externalSchemas)) {
    bodyAjv.addSchema(withExactInt64(schema) as object)
    textAjv.addSchema(withExactInt64(schema) as object)
  }
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv
    return ajv.compile(withExactInt64(schema) as object) as ValidateFunction
  }
}
