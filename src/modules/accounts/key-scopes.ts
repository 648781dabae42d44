// What a key may do (issue 26): a set of scopes, each naming an area and read or write. A key made without a
// choice has every scope, so it can do all its account can; a key can only be narrowed after it is made (a wider
// key is a new key). Write scopes do not imply read scopes. Stored as one text column, the scopes space-separated
// in this list's order (OAuth's `scope` form, RFC 6749 §3.3), so a listing reads the same on both databases.
import { KeyInputError } from './key-input.js'

export const SCOPES = [
  'pets:read',
  'pets:write',
  'orders:read',
  'orders:write',
  'messages:write',
  'webhooks:read',
  'webhooks:write',
] as const
export type Scope = (typeof SCOPES)[number]

/** What the portal's "Read-only" shortcut and the README's example choose. */
export const READ_ONLY_SCOPES: readonly Scope[] = ['pets:read', 'orders:read']

const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value)

/** The refusal of a scope that does not exist, naming the valid ones. */
class UnknownScopeError extends KeyInputError {}
/** A change that would give a key a scope it does not have: a key is only ever narrowed. */
class ScopeWideningError extends KeyInputError {}

/** The scopes in their canonical order, each once. */
function sortScopes(scopes: Iterable<Scope>): Scope[] {
  const set = new Set(scopes)
  return SCOPES.filter((s) => set.has(s))
}

/**
 * The scopes chosen (from the CLI's comma list or the portal's checkboxes), checked: each one known, at least one.
 * Undefined (no choice made) is every scope.
 */
export function checkScopes(values: readonly string[] | undefined): Scope[] {
  if (values === undefined) return [...SCOPES]
  const trimmed = values.map((v) => v.trim()).filter((v) => v !== '')
  const unknown = trimmed.filter((v) => !isScope(v))
  if (unknown.length > 0)
    throw new UnknownScopeError(
      `unknown scope ${unknown.map((u) => `"${u}"`).join(', ')}; the scopes are ${SCOPES.join(', ')}`,
    )
  if (trimmed.length === 0)
    throw new KeyInputError(`a key needs at least one scope; the scopes are ${SCOPES.join(', ')}`)
  return sortScopes(trimmed as Scope[])
}

/** `pets:read,orders:read` (the CLI's form) as a list; blanks around commas are ignored. */
export const splitScopes = (list: string) => list.split(',')

/** The stored form: space-separated, canonical order. */
export const encodeScopes = (scopes: readonly Scope[]) => sortScopes(scopes).join(' ')

/** The stored column as scopes (anything unknown in it is ignored: a scope no longer offered grants nothing). */
export const decodeScopes = (stored: string): Scope[] => sortScopes(stored.split(' ').filter(isScope))

export const hasAllScopes = (scopes: readonly Scope[]) => SCOPES.every((s) => scopes.includes(s))

/** Refuses `wanted` unless every scope of it is one the key has already (ScopeWideningError names the extra ones). */
export function checkNarrowing(keyId: string, current: readonly Scope[], wanted: readonly Scope[]): void {
  const extra = wanted.filter((s) => !current.includes(s))
  if (extra.length === 0) return
  throw new ScopeWideningError(
    `API key ${keyId} does not have ${extra.join(', ')} (it has ${current.join(', ')}); a key's scopes can only be ` +
      `narrowed: create a new key with the scopes it needs`,
  )
}
