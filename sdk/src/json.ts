// JSON with exact int64 fields. JSON.parse turns 9223372036854775807 into 9223372036854775808 (a double), so the
// body is parsed with lossless-json, which hands every number over as its text: the int64 fields (`id`,
// `categoryId`, `petId`) become `bigint`, every other number a plain `number`. Its stringify writes a `bigint` as
// the integer it is. lossless-json is plain ECMAScript (no Node.js module), small, and kept up; the service
// parses request bodies with the same library.
import { isLosslessNumber, parse, stringify } from 'lossless-json'

/** The fields that are int64 in the API: bigint in results, Int64Input in arguments. */
export const INT64_FIELDS = ['id', 'categoryId', 'petId'] as const
export type Int64Field = (typeof INT64_FIELDS)[number]
const int64Fields = new Set<string>(INT64_FIELDS)

/** An int64 as a caller may give it: a bigint, a safe-integer number, or a decimal string. */
export type Int64Input = bigint | number | string

export function parseJson(text: string): unknown {
  return parse(text, (key, value) =>
    isLosslessNumber(value) ? (int64Fields.has(key) ? BigInt(value.value) : Number(value.value)) : value,
  )
}

export function stringifyJson(value: unknown): string {
  const text = stringify(value)
  if (text === undefined) throw new TypeError('the request body is not JSON')
  return text
}

/** An int64 argument as a bigint; a TypeError (before any request) for anything that is not exactly an integer. */
export function toInt64(value: Int64Input, field: string): bigint {
  if (typeof value === 'bigint') return value
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
  if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) return BigInt(value)
  throw new TypeError(
    `${field} must be a bigint, a safe integer or a decimal ` +
      `string; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
  )
}

/**
 * A replacer for `JSON.stringify(value, toJSON)`: a bigint (the int64 fields of every result) becomes its decimal
 * string, since JSON.stringify throws "Do not know how to serialize a BigInt" and a number would lose digits.
 */
export function toJSON(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value
}
