// Opaque, tamper-evident paging cursors. A cursor carries the last id of a page and the status filter
// it was issued for, and is signed (HMAC-SHA256) together with the account it was issued to (and the list, for
// lists other than the pets), so a cursor that was altered, forged, or taken from another account or another list
// is refused instead of silently misread.
import { timingSafeEqual } from 'node:crypto'
import { ApiError } from './errors.js'
import { hmacSha256 } from '../../kernel/hmac.js'

const SIGNATURE_BYTES = 16

interface CursorPosition {
  lastId: bigint
  status: string | undefined
}

export function createCursorCodec({ secret }: { secret: string }) {
  const mac = hmacSha256(secret)
  // Pets' cursors predate lists of other things and are signed without a list name (so those already issued stay
  // valid); a payload never holds a newline, so no list's signed text can equal another's.
  const sign = (accountId: string, payload: string, list: string | undefined) =>
    mac(list === undefined ? `${accountId}\n${payload}` : `${accountId}\n${list}\n${payload}`).subarray(
      0,
      SIGNATURE_BYTES,
    )

  return {
    encode(accountId: string, position: CursorPosition, list?: string): string {
      const payload = `${position.lastId}:${position.status ?? ''}`
      return `${Buffer.from(payload).toString('base64url')}.${sign(accountId, payload, list).toString('base64url')}`
    },

    /**
     * Returns the position, or throws 400 invalid_cursor. `status` is the filter of the current request, named
     * `filter` in the query (`status`, or `type` for the events).
     */
    decode(
      accountId: string,
      cursor: string,
      status: string | undefined,
      list?: string,
      filter = 'status',
    ): CursorPosition {
      const invalid = () =>
        new ApiError(
          'invalid_cursor',
          "Query parameter 'cursor' is not a cursor this service issued to you; start again from the first page.",
        )
      const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(cursor)
      if (!match) throw invalid()
      const payloadBytes = Buffer.from(match[1]!, 'base64url')
      const signature = Buffer.from(match[2]!, 'base64url')
      // Base64 decoding ignores the unused low bits of the last character, so several texts decode to the
      // same bytes: only the canonical text we issue is accepted, any altered character is refused.
      if (payloadBytes.toString('base64url') !== match[1] || signature.toString('base64url') !== match[2])
        throw invalid()
      const payload = payloadBytes.toString()
      const expected = sign(accountId, payload, list)
      if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) throw invalid()
      // A filter is a status name or an event type (`pet.created`).
      const parts = /^(\d{1,19}):([\w.]*)$/.exec(payload)
      if (!parts) throw invalid()
      const issuedFor = parts[2] === '' ? undefined : parts[2]
      if (issuedFor !== status) {
        throw new ApiError(
          'invalid_cursor',
          `Query parameter 'cursor' was issued for ${filter}=${issuedFor ?? '(none)'}; keep the same ${filter} ` +
            `filter while paging.`,
        )
      }
      return { lastId: BigInt(parts[1]!), status: issuedFor }
    },
  }
}

export type CursorCodec = ReturnType<typeof createCursorCodec>
