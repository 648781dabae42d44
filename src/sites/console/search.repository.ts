// Finding an account from what an operator has in hand: an email address (or part of one), an account name (or
// part of one), an account id, a key id, a key's prefix as it appears in a log (`ps_live_AbCd`, or a longer paste
// that starts with one), or a whole secret, found through its hash like the authenticator finds it. An address also
// finds the accounts where its user is a member (any role: teams). Every result says why it matched. The input is
// only compared, never stored; a secret is never part of a result.
import { sql, type Kysely } from 'kysely'
import { displayPrefix, hashApiKey } from '../../modules/accounts/api-keys.js'
import type { Database, MemberRole } from '../../db/schema.js'
import { accountsByAddress, ownersOf, usersByAddress } from '../../modules/integrators/account-owners.js'
import type { Teams } from '../../modules/teams/teams.service.js'

/** The most accounts a search returns (the page says when there were more). */
export const MAX_RESULTS = 50
/** The longest input looked at: longer than any email, id or secret. */
export const MAX_QUERY = 400

export type AccountState = 'active' | 'suspended' | 'deleted'

export interface SearchResult {
  id: string
  name: string
  email: string | null
  plan: string
  state: AccountState
  createdAt: string
  /** Why it matched, in words (e.g. `part of the email`, `key id key_…`). */
  reasons: string[]
  /** The same, from a closed list: what the account page may say when a search with one match opened it. */
  foundBy: FoundBy[]
}

/** Why an account matched, as the account page says it (nothing of the input: a secret must not reach a URL). */
export const FOUND_BY = {
  'account-id': 'its account id',
  'key-id': 'the id of one of its keys',
  secret: 'the whole secret of one of its keys (found through its hash; not kept)',
  'key-prefix': 'the prefix of one of its keys',
  email: "its owner's email",
  'part-email': "part of its owner's email",
  'member-email': "a member's email",
  'part-member-email': "part of a member's email",
  name: 'its name',
  'part-name': 'part of its name',
} as const
export type FoundBy = keyof typeof FOUND_BY

/** `ps_live_` / `ps_test_`, then the secret's base64url characters. */
const KEY_TEXT = /^ps_(?:live|test)_[A-Za-z0-9_-]*$/
const PREFIX_LENGTH = displayPrefix('ps_test_AbCdEfGh').length

/** A key's text that is more than its listed prefix: part or all of a secret, never to be shown back whole. */
export const isSecretLike = (q: string): boolean => KEY_TEXT.test(q) && q.length > PREFIX_LENGTH

/** What the page may show of the input: a secret-like one only as its prefix (`ps_live_AbCd…`). */
export const shownQuery = (q: string): string => (isSecretLike(q) ? `${displayPrefix(q)}…` : q)

/** `%` and `_` in the input are literal characters, not wildcards (escaped with `\`). */
const likeEscape = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`)
const ESCAPE = sql.raw("escape '\\'")

/** The most memberships of the users found that a search looks at (they are the accounts it may show). */
const MAX_MEMBERSHIPS = 4 * MAX_RESULTS

/**
 * The accounts where a user whose address contains the fragment is a member, with the role, leaving out each user's
 * own account (its owner's address finds it already). At most MAX_RESULTS + 1 users, as the other look-ups, and
 * MAX_MEMBERSHIPS of their memberships; `more` when either was cut.
 */
async function accountsOfMembers(
  db: Kysely<Database>,
  teams: Pick<Teams, 'accountsOf'>,
  likePattern: string,
): Promise<{ more: boolean; memberships: Array<{ accountId: string; email: string; role: MemberRole }> }> {
  const users = await usersByAddress(db, { likePattern, escapeClause: ESCAPE, limit: MAX_RESULTS + 1 })
  const emails = new Map(users.map((u) => [u.id, u.email]))
  const all = await teams.accountsOf([...emails.keys()])
  const memberships = all.slice(0, MAX_MEMBERSHIPS)
  const owners = await ownersOf(
    db,
    memberships.map((m) => m.accountId),
  )
  return {
    more: users.length > MAX_RESULTS || all.length > MAX_MEMBERSHIPS,
    memberships: memberships
      .map((m) => ({ accountId: m.accountId, email: emails.get(m.userId)!, role: m.role }))
      .filter((m) => owners.get(m.accountId)?.email !== m.email),
  }
}

export function createSearchRepository({ db, teams }: { db: Kysely<Database>; teams: Pick<Teams, 'accountsOf'> }) {
  return {
    async search(input: string): Promise<{ results: SearchResult[]; more: boolean }> {
      // A prefix copied from a listing ends with an ellipsis; it is not part of the key.
      const q = input
        .trim()
        .replace(/(?:…|\.\.\.)$/, '')
        .slice(0, MAX_QUERY)
      if (q === '') return { results: [], more: false }
      const lower = q.toLowerCase()
      const contains = `%${likeEscape(lower)}%`
      const found = new Map<string, string[]>()
      const foundBy = new Map<string, FoundBy[]>()
      const exact = new Set<string>()
      const add = (accountId: string, reason: string, by: FoundBy, isExact = true) => {
        const reasons = found.get(accountId) ?? []
        // Two members of one role matching: one reason.
        found.set(accountId, reasons.includes(reason) ? reasons : [...reasons, reason])
        foundBy.set(accountId, [...(foundBy.get(accountId) ?? []), by])
        if (isExact) exact.add(accountId)
      }
      const keyText = KEY_TEXT.test(q)
      // Part or all of a secret goes to the database only as its hash and its listed prefix.
      const secretLike = isSecretLike(q)
      const unlessSecret = <T>(query: () => Promise<T[]>): Promise<T[]> => (secretLike ? Promise.resolve([]) : query())
      const byPrefix = !keyText
        ? Promise.resolve([])
        : q.length >= PREFIX_LENGTH
          ? // A paste at least as long as a listed prefix: its first characters are the stored prefix (index look-up).
            db
              .selectFrom('api_keys')
              .select(['id', 'account_id', 'key_prefix'])
              .where('key_prefix', '=', displayPrefix(q))
              .limit(MAX_RESULTS + 1)
              .execute()
          : db
              .selectFrom('api_keys')
              .select(['id', 'account_id', 'key_prefix'])
              .where(sql<boolean>`key_prefix like ${`${likeEscape(q)}%`} ${ESCAPE}`)
              .limit(MAX_RESULTS + 1)
              .execute()

      const [emails, members, names, ids, keyIds, prefixes, secret] = await Promise.all([
        unlessSecret(() =>
          accountsByAddress(db, { likePattern: contains, escapeClause: ESCAPE, limit: MAX_RESULTS + 1 }),
        ),
        secretLike ? { more: false, memberships: [] } : accountsOfMembers(db, teams, contains),
        unlessSecret(() =>
          db
            .selectFrom('accounts')
            .select(['id', 'name'])
            .where(sql<boolean>`lower(name) like ${contains} ${ESCAPE}`)
            .limit(MAX_RESULTS + 1)
            .execute(),
        ),
        unlessSecret(() =>
          db
            .selectFrom('accounts')
            .select('id')
            .where('id', 'in', [...new Set([q, lower])])
            .execute(),
        ),
        unlessSecret(() =>
          db
            .selectFrom('api_keys')
            .select(['id', 'account_id'])
            .where('id', 'in', [...new Set([q, lower])])
            .execute(),
        ),
        byPrefix,
        // Whatever was pasted is hashed, as the authenticator does: only a whole, exact secret matches.
        keyText
          ? db
              .selectFrom('api_keys')
              .select(['id', 'account_id'])
              .where('key_hash', '=', hashApiKey(q))
              .executeTakeFirst()
          : Promise.resolve(undefined),
      ])

      for (const r of ids) add(r.id, 'account id', 'account-id')
      for (const r of keyIds) add(r.account_id, `key id ${r.id}`, 'key-id')
      if (secret) add(secret.account_id, `whole secret of key ${secret.id}`, 'secret')
      for (const r of prefixes)
        if (r.id !== secret?.id) add(r.account_id, `key prefix ${r.key_prefix}… (key ${r.id})`, 'key-prefix', false)
      for (const r of emails) {
        const whole = r.email.toLowerCase() === lower
        add(r.account_id, whole ? 'email' : 'part of the email', whole ? 'email' : 'part-email', whole)
      }
      for (const m of members.memberships) {
        const whole = m.email.toLowerCase() === lower
        const reason = `${whole ? '' : 'part of a '}member's address (${m.role})`
        add(m.accountId, reason, whole ? 'member-email' : 'part-member-email', whole)
      }
      for (const r of names) {
        const whole = r.name.toLowerCase() === lower
        add(r.id, whole ? 'account name' : 'part of the account name', whole ? 'name' : 'part-name', whole)
      }

      const accountIds = [...found.keys()]
      if (accountIds.length === 0) return { results: [], more: false }
      const rows = await db
        .selectFrom('accounts')
        .select([
          'accounts.id',
          'accounts.name',
          'accounts.plan',
          'accounts.created_at',
          'accounts.deleted_at',
          'accounts.suspended_at',
        ])
        .where('accounts.id', 'in', accountIds.slice(0, 4 * MAX_RESULTS))
        .orderBy('accounts.created_at', 'desc')
        .orderBy('accounts.id')
        .execute()
      const owners = await ownersOf(
        db,
        rows.map((r) => r.id),
      )
      const results = rows.map((r) => ({
        id: r.id,
        name: r.name,
        email: owners.get(r.id)?.email ?? null,
        plan: r.plan,
        state: (r.deleted_at !== null ? 'deleted' : r.suspended_at !== null ? 'suspended' : 'active') as AccountState,
        createdAt: r.created_at,
        reasons: found.get(r.id)!,
        foundBy: [...new Set(foundBy.get(r.id)!)],
      }))
      // Exact matches (an id, a secret, a whole address) before partial ones; newest first within each.
      results.sort((a, b) => Number(exact.has(b.id)) - Number(exact.has(a.id)))
      const more =
        accountIds.length > MAX_RESULTS ||
        members.more ||
        [emails, names, prefixes].some((list) => list.length > MAX_RESULTS)
      return { results: results.slice(0, MAX_RESULTS), more }
    },
  }
}
