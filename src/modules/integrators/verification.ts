// Verifying an integrator's address: the mailed link and its message. One place for the portal (sign-up, "Send the
// link again") and the console (an operator's `Resend verification`), which may not import each other. The link
// leads to the portal's /portal/verify/TOKEN, which uses the token up.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import type { MailMessage } from '../../mail/mail.js'
import { issueLinkToken } from './link-tokens.js'
import { hasPassword } from '../../kernel/passwords.js'
import { PORTAL_MAIL_SIGNATURE } from '../../mail/signature.js'

const VERIFY_TTL_MS = 24 * 60 * 60 * 1000

function verifyMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Verify your email address',
    text:
      `Welcome to Petstore.\n\nOpen this link to verify your address (it works once, for 24 ` +
      `hours):\n\n${link}\n\nIf you did not sign up, ignore this message.${PORTAL_MAIL_SIGNATURE}`,
  }
}

/** An account's portal user as operators see it (accounts made by the CLI have none). */
export interface PortalUserSummary {
  id: string
  email: string
  verifiedAt: string | null
  /** Made by an operator, and its owner has not chosen a password yet (invitations.ts). */
  invited: boolean
}

export function createVerification({
  db,
  clock,
  publicUrl,
  engine = kyselyEngine(db),
}: {
  db: Kysely<Database>
  clock: Clock
  publicUrl: string
  engine?: Engine
}) {
  return {
    async userOf(accountId: string): Promise<PortalUserSummary | undefined> {
      const row = await db
        .selectFrom('portal_users')
        .select(['id', 'email', 'verified_at', 'password_hash'])
        .where('account_id', '=', accountId)
        .executeTakeFirst()
      return (
        row && {
          id: row.id,
          email: row.email,
          verifiedAt: row.verified_at,
          invited: !hasPassword(row.password_hash),
        }
      )
    },

    /**
     * The message with a fresh verification link for the user (older links stop working), or undefined when a
     * link was issued less than a minute ago (that one, still fresh, stays the link). The link is built from
     * PETSTORE_PUBLIC_URL, never from a request.
     */
    async freshLinkMessage(user: { id: string; email: string }): Promise<MailMessage | undefined> {
      const token = await issueLinkToken(engine, {
        userId: user.id,
        purpose: 'verify',
        ttlMs: VERIFY_TTL_MS,
        at: clock.now(),
      })
      return token === undefined ? undefined : verifyMessage(user.email, `${publicUrl}/portal/verify/${token}`)
    },
  }
}

export type Verification = ReturnType<typeof createVerification>
