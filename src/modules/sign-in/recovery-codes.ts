// Recovery codes: 10 per operator or portal user, each usable once instead of a TOTP code (a lost phone). 50
// random bits each, written `xxxxx-xxxxx` in Crockford's base32 (no i, l, o or u to mistake); stored only as hashes.
import { randomBytes } from 'node:crypto'
import { secretHash } from '../../kernel/secrets.js'

const RECOVERY_CODE_COUNT = 10
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'

function oneCode(): string {
  const bytes = randomBytes(10)
  const chars = [...bytes].map((b) => ALPHABET[b % 32]!)
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`
}

export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, oneCode)

/** Whether input looks like a recovery code (not a 6-digit TOTP code). */
export const looksLikeRecoveryCode = (input: string): boolean => normalize(input) !== undefined

function normalize(input: string): string | undefined {
  const compact = input.trim().toLowerCase().replace(/[\s-]/g, '')
  return /^[0-9a-hjkmnp-tv-z]{10}$/.test(compact) ? compact : undefined
}

/** The stored hash of a code as typed (case, spaces and the dash do not matter); undefined if it cannot be one. */
export function recoveryCodeHash(input: string): string | undefined {
  const compact = normalize(input)
  return compact === undefined ? undefined : secretHash(`recovery:${compact}`)
}
