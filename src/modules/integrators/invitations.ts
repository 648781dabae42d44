// Accounts that operators make (PORTAL_SIGNUP=closed, or anyone's choice): the account and its portal user, with no
// password until the owner chooses one through a mailed link. The link is a reset link (/portal/reset/TOKEN, used up
// there): choosing the password also verifies the address, voids every other link and starts no session.
import type { AuditActor } from '../audit/audit-event.js'
import type { MailMessage } from '../../mail/mail.js'
import { UNSET_PASSWORD } from '../../kernel/passwords.js'
import type { PortalRepository } from './integrators.repository.js'
import { PORTAL_MAIL_SIGNATURE } from '../../mail/signature.js'

/** How long an invitation's link works: a week, for someone who reads mail on Mondays. */
const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000

function invitationMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Your Petstore account: choose a password',
    text:
      `An account was made for you on Petstore. Open this link to choose its password (it works once, for 7 ` +
      `days):\n\n${link}\n\nAfterwards, log in and create API keys. If you did not expect this, ignore this ` +
      `message.${PORTAL_MAIL_SIGNATURE}`,
  }
}

type Invited =
  | { outcome: 'invited'; accountId: string; message: MailMessage }
  /** The address has an account already (nothing was made). */
  | { outcome: 'taken'; accountId: string | undefined }

export function createInvitations({ repo, publicUrl }: { repo: PortalRepository; publicUrl: string }) {
  const linkFor = (token: string) => `${publicUrl}/portal/reset/${token}`
  return {
    /** Makes the account (on `plan`) and its user; the message to mail holds the link. `email`: normalised. */
    async invite(input: { email: string; plan: string; actor: AuditActor }): Promise<Invited> {
      const existing = await repo.findUserByEmail(input.email)
      if (existing) return { outcome: 'taken', accountId: existing.account_id }
      const user = await repo.createUser({ ...input, passwordHash: UNSET_PASSWORD })
      if (!user) return { outcome: 'taken', accountId: (await repo.findUserByEmail(input.email))?.account_id }
      const token = await repo.issueToken(user.id, 'reset', INVITATION_TTL_MS, 0)
      if (!token) throw new Error('a new user already had a link')
      return { outcome: 'invited', accountId: user.account_id, message: invitationMessage(user.email, linkFor(token)) }
    },

    /**
     * A fresh link for a user still waiting (earlier ones stop working); undefined when one was mailed less than a
     * minute ago (that one stays the link).
     */
    async again(user: { id: string; email: string }): Promise<MailMessage | undefined> {
      const token = await repo.issueToken(user.id, 'reset', INVITATION_TTL_MS)
      return token === undefined ? undefined : invitationMessage(user.email, linkFor(token))
    },
  }
}

export type Invitations = ReturnType<typeof createInvitations>
