// The messages the console itself writes to an account's owner (the others it sends are written by their modules:
// invitations.ts, verification.ts, plan-request-mail.ts). Plain 7-bit text (mail-format.ts refuses anything else),
// links from the public URL only, each whole on a line of its own.
import type { MailMessage } from '../../mail/mail.js'
import { PORTAL_MAIL_SIGNATURE as signature } from '../../mail/signature.js'

/** To a portal user whose second factors an admin reset (after verifying them out of band). `at`: as people read it. */
export function secondFactorsResetMessage(
  to: string,
  input: { at: string; accountLink: string; resetLink: string },
): MailMessage {
  return {
    to,
    subject: 'The second factors of your Petstore account were reset',
    text:
      `An operator reset the second factors of your Petstore account on ${input.at}: its authenticator app, ` +
      `passkeys and recovery codes no longer work. You now log in with your password alone.\n\nSet up two-factor ` +
      `log-in again on your account page:\n\n${input.accountLink}\n\nIf you did not ask for this, choose a new ` +
      `password now (every session is logged out) and contact support:\n\n${input.resetLink}${signature}`,
  }
}
