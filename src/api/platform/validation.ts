// Request validation: one Ajv per kind of input, compiled from the same TypeBox schemas that feed OpenAPI.
// - Bodies are validated strictly: no type coercion, no defaults, unknown fields are errors.
// - Query strings and path parameters arrive as text: integers must be plain decimal digits, other types
//   are coerced, and defaults are applied.
// - `{type: 'integer', format: 'int64'}` is checked exactly over the whole signed 64-bit range and handed
//   to the handler as a bigint: JSON numbers above 2^53 cannot be trusted once they are JavaScript numbers.
// - Strings (bodies, path and query parameters) must be well-formed Unicode without U+0000: PostgreSQL text cannot
//   hold U+0000 (it failed as a 500), and an unpaired surrogate would be stored as U+FFFD, changed without a word.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const INTEGER_KEYWORD = 'x-integer'
const TEXT_KEYWORD = 'x-text'
/** Plain decimal text: no sign but `-`, no leading zeros, no hex, exponent, space or fraction. */
const DECIMAL_TEXT = /^(0|-?[1-9]\d{0,18})$/

interface IntegerRule {
  minimum?: number
  maximum?: number
  /** Hand the value on as a bigint over the whole int64 range, instead of as a (safe) number. */
  int64: boolean
}

/**
 * Parses a JSON number, a bigint from the body parser, or (only with `acceptText`: path/query) plain
 * decimal text as an exact integer; undefined if not one. A JSON string such as `"1"` in a body is a
 * wrong type, not a number.
 */
function toInt64(value: unknown, acceptText = true): bigint | undefined {
  let n: bigint
  if (typeof value === 'bigint') n = value
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value)
  else if (acceptText && typeof value === 'string' && DECIMAL_TEXT.test(value)) n = BigInt(value)
  else return undefined
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined
}

function addIntegerKeyword(ajv: Ajv, acceptText: boolean): void {
  ajv.addKeyword({
    keyword: INTEGER_KEYWORD,
    modifying: true,
    errors: true,
    schemaType: 'object',
    // Compiled once per schema: the bounds and the message are made here, not on every request.
    compile(rule: IntegerRule) {
      const min =
        rule.minimum === undefined ? (rule.int64 ? INT64_MIN : BigInt(Number.MIN_SAFE_INTEGER)) : BigInt(rule.minimum)
      const max =
        rule.maximum === undefined ? (rule.int64 ? INT64_MAX : BigInt(Number.MAX_SAFE_INTEGER)) : BigInt(rule.maximum)
      const message = `must be an integer from ${min} to ${max}`
      const check = (
        data: unknown,
        ctx?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
      ): boolean => {
        const n = toInt64(data, acceptText)
        if (n === undefined || n < min || n > max) {
          // A new error object each time: Ajv writes the failing instance's path and data into it.
          ;(check as unknown as { errors: Partial<ErrorObject>[] }).errors = [
            { keyword: INTEGER_KEYWORD, message, params: {} },
          ]
          return false
        }
        if (ctx?.parentData) ctx.parentData[ctx.parentDataProperty] = rule.int64 ? n : Number(n)
        return true
      }
      return check
    },
  })
}

const isText = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed() && !s.includes('\0')

function addTextKeyword(ajv: Ajv): void {
  const check = (_schema: unknown, data: string): boolean => {
    if (isText(data)) return true
    ;(check as unknown as { errors: Partial<ErrorObject>[] }).errors = [
      { keyword: TEXT_KEYWORD, message: 'must not contain U+0000 or an unpaired surrogate', params: {} },
    ]
    return false
  }
  // Before `pattern`: a string's documented pattern also refuses U+0000 (http/schemas.ts), and this keyword's
  // message says what is wrong where the pattern's would only quote the field's description.
  ajv.addKeyword({
    keyword: TEXT_KEYWORD,
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: check,
    before: 'pattern',
  })
}

/**
 * Replaces integer nodes by the exact keyword (int64 ones always; in text parts every one, so that `0x10`,
 * `1e1` or `+5` are refused rather than coerced) and, with `text`, adds the text keyword to string nodes. The
 * original schema, used by OpenAPI, is left untouched.
 */
function withExactValues(schema: unknown, allIntegers: boolean, text: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withExactValues(s, allIntegers, text))
  if (schema === null || typeof schema !== 'object') return schema
  const node = schema as Record<string, unknown>
  const int64 = node.format === 'int64'
  if (node.type === 'integer' && (int64 || allIntegers)) {
    const { type: _t, format: _f, minimum, maximum, ...rest } = node
    // int64 bounds above 2^53 cannot be written as JSON numbers exactly; the keyword knows the int64 range.
    const rule: IntegerRule = {
      int64,
      minimum: minimum as number | undefined,
      maximum: int64 ? undefined : (maximum as number | undefined),
    }
    return { ...rest, [INTEGER_KEYWORD]: rule }
  }
  const mapped = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withExactValues(v, allIntegers, text)]))
  // Also every string node gets the text keyword (not headers: their values are bytes, and the Idempotency-Key's own
  // check answers for a bad one).
  return text && node.type === 'string' ? { ...mapped, [TEXT_KEYWORD]: true } : mapped
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
  addIntegerKeyword(ajv, options.coerce)
  addTextKeyword(ajv)
  return ajv
}

// Compiled validators by the text of their schemas, for the process: compiling (Ajv's code generation, and each
// Ajv's check of schemas against its meta-schema) is most of an app's start-up, and a process that builds more than
// one app from the same schemas (the test suite builds one per test) compiles each schema once. A validator keeps no
// state between calls, so apps can share it.
const compilers = new Map<string, FastifySchemaCompiler<unknown>>()

/** The validator compiler for the app's schema controller, with the shared schemas registered. */
export function buildValidatorCompiler(externalSchemas: Record<string, unknown>): FastifySchemaCompiler<unknown> {
  const key = JSON.stringify(externalSchemas)
  let compiler = compilers.get(key)
  if (!compiler) {
    compiler = createValidatorCompiler(externalSchemas)
    compilers.set(key, compiler)
  }
  return compiler
}

function createValidatorCompiler(externalSchemas: Record<string, unknown>): FastifySchemaCompiler<unknown> {
  // The two Ajvs, with the shared schemas checked and added, are made when the first validator is compiled.
  let ajvs: { bodyAjv: Ajv; textAjv: Ajv } | undefined
  const made = () => {
    if (ajvs) return ajvs
    const bodyAjv = createAjv({ coerce: false })
    const textAjv = createAjv({ coerce: true })
    for (const schema of Object.values(externalSchemas)) {
      bodyAjv.addSchema(withExactValues(schema, false, true) as object)
      textAjv.addSchema(withExactValues(schema, true, true) as object)
    }
    return (ajvs = { bodyAjv, textAjv })
  }
  const compiled = new Map<string, ValidateFunction>()
  return ({ schema, httpPart }) => {
    const body = httpPart === 'body'
    const exact = withExactValues(schema, !body, httpPart !== 'headers') as object
    const key = `${body ? 'body' : 'text'} ${JSON.stringify(exact)}`
    let validate = compiled.get(key)
    if (!validate) {
      validate = compiledOnFirstUse(() => (body ? made().bodyAjv : made().textAjv).compile(exact) as ValidateFunction)
      compiled.set(key, validate)
    }
    return validate
  }
}

/**
 * A validator compiled when it is first called, not when its route is registered: compiling every route's schemas
 * was ~0.3 s of each start, before the first request could be answered; a route's first request pays its own few
 * milliseconds instead. Every schema is still compiled by the test suite, which calls every route.
 */
function compiledOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let real: ValidateFunction | undefined
  const validate = ((data: unknown) => {
    real ??= compile()
    const valid = real(data)
    validate.errors = real.errors
    return valid
  }) as ValidateFunction
  return validate
}
