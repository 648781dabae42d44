// Narrowing what a key may do (issue 26), in one transaction with its audit entry, for the CLI, the portal and the
// console alike. Announced like a revocation (changingKeys), so every instance's key cache forgets the key's old
// scopes at once and the next request anywhere is judged by the new ones. Scopes are set when a key is created
// (createApiKey) and kept by a roll; after that they only ever shrink: a wider key is a new key.
import { writeAudit } from '../audit/audit.repository.js'
import type { AuditActor } from '../audit/audit-event.js'
import type { ChangeContext } from './account-changes.js'
import { KeyStateError, toKeyInfo, type ApiKeyInfo } from './account-rows.js'
import { checkNarrowing, checkScopes, encodeScopes } from './key-scopes.js'
import { keyState } from './key-state.js'

export function keyScopeChanges({ clock, changingKeys, keyRow }: ChangeContext) {
  return {
    /**
     * Gives an active key fewer scopes: `scopes` must be a non-empty subset of what it has (KeyInputError names
     * an unknown scope; ScopeWideningError one the key does not have). The same set again changes nothing and
     * writes no entry. A rolled key still in its grace period may be narrowed too (its replacement keeps its own).
     */
    async restrictApiKeyScopes(input: {
      keyId: string
      scopes: readonly string[]
      accountId?: string
      actor: AuditActor
    }): Promise<ApiKeyInfo> {
      const wanted = checkScopes(input.scopes)
      return changingKeys('scopes', async (trx) => {
        const row = await keyRow(input.keyId, input.accountId, trx)
        const at = clock.now()
        const state = keyState(
          { revokedAt: row.revoked_at, expiresAt: row.expires_at, graceEndsAt: row.grace_ends_at },
          at,
        )
        if (state !== 'active')
          throw new KeyStateError(`API key ${row.id} is ${state}; only an active key's scopes can be changed`)
        const current = toKeyInfo(row, at).scopes
        checkNarrowing(row.id, current, wanted)
        if (wanted.length === current.length) return toKeyInfo(row, at)
        const scopes = encodeScopes(wanted)
        // Only from the scopes read above: of two narrowings at once, the second is refused, not silently merged.
        const result = await trx
          .updateTable('api_keys')
          .set({ scopes })
          .where('id', '=', row.id)
          .where('scopes', '=', row.scopes)
          .where('revoked_at', 'is', null)
          .executeTakeFirst()
        if (result.numUpdatedRows === 0n)
          throw new KeyStateError(`API key ${row.id} was changed or revoked meanwhile; its scopes were not changed`)
        await writeAudit(trx, at, input.actor, {
          action: 'key.scopes_restricted',
          accountId: row.account_id,
          target: { kind: 'key', id: row.id },
          changes: { before: { scopes: current }, after: { scopes: wanted }, name: row.name, prefix: row.key_prefix },
        })
        return toKeyInfo({ ...row, scopes }, at)
      })
    },
  }
}
