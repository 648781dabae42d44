// Teams: the rules of an account's members and invitations, and the audit entry of every change (written in the
// change's transaction). There is always an owner: the last one can be neither removed, demoted nor leave. An
// admin manages members below owner; an owner manages everyone. Removing a member ends their sessions in that
// account at once (the hook the composition root gives: the sessions are the integrators' table).
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database, MemberRole } from '../../db/schema.js'
import { randomSecret } from '../../kernel/secrets.js'
import type { AuditAction, AuditActor } from '../audit/audit-event.js'
import { accountChange } from '../audit/audit.repository.js'
import { invitationsRepository, type Invitation } from './invitations.repository.js'
import { membersRepository, type Membership } from './members.repository.js'
import { rolesGrantableBy } from './roles.js'

const INVITATION_TTL_MS = 7 * 86_400_000
const INVITATIONS_PER_DAY = 50
const MEMBERS_MAX = 100

interface TeamsDependencies {
  db: Kysely<Database>
  clock: Clock
  /** Portal users by id: their address (the integrators module's table). */
  emailsOf: (userIds: readonly string[]) => Promise<Map<string, string>>
  /** Ends a user's portal sessions in one account, in the change's transaction. */
  endSessionsIn: (trx: Kysely<Database>, userId: string, accountId: string) => Promise<void>
}

type InviteOutcome =
  | { outcome: 'invited'; invitation: Invitation; token: string }
  | { outcome: 'member' | 'too_many_today' | 'too_many_members' | 'role_not_allowed' }

type MemberChange = { outcome: 'done'; email: string } | { outcome: 'not_found' | 'not_allowed' | 'last_owner' }

export function createTeams({ db, clock, emailsOf, endSessionsIn }: TeamsDependencies) {
  const members = membersRepository(db)
  const invitations = invitationsRepository(db)

  const change = <T>(
    accountId: string,
    actor: AuditActor,
    action: AuditAction,
    changes: Record<string, unknown>,
    work: (trx: Kysely<Database>) => Promise<T>,
  ): Promise<T> => accountChange(db, () => clock.now(), { accountId, actor, action, changes }, work)

  /** Whether `by` may change or remove a member of `role` (and, for a change, give `to`). */
  const mayManage = (by: Membership, role: MemberRole, to?: MemberRole) =>
    rolesGrantableBy(by.role).includes(role) && (to === undefined || rolesGrantableBy(by.role).includes(to))

  return {
    membershipsOf: (userId: string) => members.membershipsOf(userId),
    membership: (userId: string, accountId: string) => members.membership(userId, accountId),

    /** The membership a session works in: the one it chose if it still holds, else the user's first. */
    async current(userId: string, chosen: string | null | undefined): Promise<Membership | undefined> {
      const held = chosen ? await members.membership(userId, chosen) : undefined
      return held ?? (await members.membershipsOf(userId))[0]
    },

    async members(accountId: string): Promise<Array<Membership & { email: string }>> {
      const list = await members.membersOf(accountId)
      const emails = await emailsOf(list.map((m) => m.userId))
      return list.map((m) => ({ ...m, email: emails.get(m.userId) ?? '' }))
    },

    pendingInvitations: (accountId: string) => invitations.pending(accountId, clock.now()),

    async invite(input: {
      by: Membership
      email: string
      emailKey: string
      role: MemberRole
      memberEmailKeys: string[]
      actor: AuditActor
    }): Promise<InviteOutcome> {
      const { by, role } = input
      const now = clock.now()
      if (!rolesGrantableBy(by.role).includes(role)) return { outcome: 'role_not_allowed' }
      if (input.memberEmailKeys.includes(input.emailKey)) return { outcome: 'member' }
      if ((await invitations.countSince(by.accountId, now - 86_400_000)) >= INVITATIONS_PER_DAY)
        return { outcome: 'too_many_today' }
      const open = (await invitations.pending(by.accountId, now)).length
      if ((await members.count(by.accountId)) + open >= MEMBERS_MAX) return { outcome: 'too_many_members' }
      const token = randomSecret()
      const invitation = {
        id: `inv_${randomBytes(12).toString('hex')}`,
        accountId: by.accountId,
        email: input.email,
        emailKey: input.emailKey,
        role,
        invitedBy: by.userId,
        createdAt: now,
        expiresAt: now + INVITATION_TTL_MS,
      }
      await change(by.accountId, input.actor, 'member.invited', { email: input.email, role }, (trx) =>
        invitationsRepository(trx).insert({ ...invitation, token }),
      )
      return { outcome: 'invited', invitation: { ...invitation, acceptedAt: null, revokedAt: null }, token }
    },

    /** A fresh link for an open invitation (the old one dies) and a new week. */
    async resend(by: Membership, id: string): Promise<{ invitation: Invitation; token: string } | undefined> {
      const invitation = await invitations.byId(by.accountId, id)
      if (!invitation || !mayManage(by, invitation.role)) return undefined
      const token = randomSecret()
      const expiresAt = clock.now() + INVITATION_TTL_MS
      return (await invitations.renew(id, token, expiresAt))
        ? { invitation: { ...invitation, expiresAt }, token }
        : undefined
    },

    async revoke(by: Membership, id: string, actor: AuditActor): Promise<Invitation | undefined> {
      const invitation = await invitations.byId(by.accountId, id)
      if (!invitation || !mayManage(by, invitation.role)) return undefined
      const changes = { email: invitation.email, role: invitation.role }
      const done = await change(by.accountId, actor, 'member.invitation_revoked', changes, (trx) =>
        invitationsRepository(trx).revoke(id, clock.now()),
      )
      return done ? invitation : undefined
    },

    /** What a link leads to: the invitation and whether it can still be accepted. */
    async invitation(token: string): Promise<{ invitation: Invitation; usable: boolean } | undefined> {
      const invitation = token.length > 100 ? undefined : await invitations.byToken(token)
      if (!invitation) return undefined
      const usable =
        invitation.acceptedAt === null && invitation.revokedAt === null && invitation.expiresAt > clock.now()
      return { invitation, usable }
    },

    /** Joins the user to the invitation's account if the link is usable and is for the user's address. */
    async accept(
      token: string,
      user: { id: string; emailKey: string },
      actor: (accountId: string) => AuditActor,
    ): Promise<{ outcome: 'joined'; accountId: string } | { outcome: 'unusable' | 'wrong_address' }> {
      const found = await this.invitation(token)
      if (!found?.usable) return { outcome: 'unusable' }
      const { invitation } = found
      if (invitation.emailKey !== user.emailKey) return { outcome: 'wrong_address' }
      const changes = { email: invitation.email, role: invitation.role }
      const joined = await change(
        invitation.accountId,
        actor(invitation.accountId),
        'member.joined',
        changes,
        async (trx) => {
          if (!(await invitationsRepository(trx).accept(invitation.id, clock.now()))) throw new Unusable()
          const m = { accountId: invitation.accountId, userId: user.id, role: invitation.role, createdAt: clock.now() }
          await membersRepository(trx).add(m)
          return true
        },
      ).catch((error: unknown) => {
        if (error instanceof Unusable) return false
        throw error
      })
      return joined ? { outcome: 'joined', accountId: invitation.accountId } : { outcome: 'unusable' }
    },

    async changeRole(by: Membership, userId: string, role: MemberRole, actor: AuditActor): Promise<MemberChange> {
      return this.alter(by, userId, actor, 'member.role_changed', role)
    },

    async remove(by: Membership, userId: string, actor: AuditActor): Promise<MemberChange> {
      return this.alter(by, userId, actor, 'member.removed')
    },

    /** A member leaves (not the last owner). */
    async leave(self: Membership, actor: AuditActor): Promise<MemberChange> {
      return this.alter({ ...self, role: 'owner' }, self.userId, actor, 'member.left', undefined, true)
    },

    /** A role change (`to`) or a removal, in one transaction that re-checks the last owner under its own writes. */
    async alter(
      by: Membership,
      userId: string,
      actor: AuditActor,
      action: 'member.role_changed' | 'member.removed' | 'member.left',
      to?: MemberRole,
      self = false,
    ): Promise<MemberChange> {
      const target = await members.membership(userId, by.accountId)
      if (!target) return { outcome: 'not_found' }
      if (!self && !mayManage(by, target.role, to)) return { outcome: 'not_allowed' }
      const email = (await emailsOf([userId])).get(userId) ?? ''
      const changes = to === undefined ? { email, role: target.role } : { email, from: target.role, to }
      try {
        await change(by.accountId, actor, action, changes, async (trx) => {
          const repo = membersRepository(trx)
          if (to === undefined) {
            await repo.remove(by.accountId, userId)
            await endSessionsIn(trx, userId, by.accountId)
          } else await repo.setRole(by.accountId, userId, to)
          // Checked after the write, in its transaction: two owners demoting each other at once cannot both win.
          if ((await repo.count(by.accountId, 'owner')) === 0) throw new LastOwner()
        })
      } catch (error) {
        if (error instanceof LastOwner) return { outcome: 'last_owner' }
        throw error
      }
      return { outcome: 'done', email }
    },

    requiresTwoFactor: (accountId: string) => members.requiresTwoFactor(accountId),

    async setRequireTwoFactor(accountId: string, on: boolean, actor: AuditActor): Promise<void> {
      await change(accountId, actor, 'account.two_factor_required', { required: on }, (trx) =>
        membersRepository(trx).setRequireTwoFactor(accountId, on),
      )
    },

    /** A new portal user owns the account made with it (in the sign-up's transaction). */
    addOwner: async (trx: Kysely<Database>, accountId: string, userId: string): Promise<void> =>
      void (await membersRepository(trx).add({ accountId, userId, role: 'owner', createdAt: clock.now() })),

    /**
     * With the account's deletion, in its transaction: every membership and invitation of it. `founders`: the portal
     * users made with it; returns those still members of another account, whose log-in stays (the others go with it).
     */
    async removeWithAccount(trx: Kysely<Database>, accountId: string, founders: readonly string[]): Promise<string[]> {
      const repo = membersRepository(trx)
      await repo.removeAll(accountId)
      await invitationsRepository(trx).removeAll(accountId)
      return [...new Set((await repo.accountsOf(founders)).map((m) => m.userId))]
    },

    /** Accounts where these users are members (the console's search by a member's address). */
    accountsOf: (userIds: readonly string[]) => members.accountsOf(userIds),
  }
}

class Unusable extends Error {}
class LastOwner extends Error {}

export type Teams = ReturnType<typeof createTeams>
