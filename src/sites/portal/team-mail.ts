// The mail of teams: an invitation (its link, single use, 7 days) and a member's removal.
import type { MailMessage } from '../../mail/mail.js'
import { PORTAL_MAIL_SIGNATURE } from '../../mail/signature.js'

export function invitationMessage(
  to: string,
  input: { account: string; inviter: string; role: string; link: string },
): MailMessage {
  return {
    to,
    subject: `You are invited to ${input.account} on Petstore`,
    text:
      `${input.inviter} invited you to the Petstore account "${input.account}" as ${input.role}.\n\nOpen this link ` +
      `to accept (it works once, for 7 days; you sign up from it if you have no Petstore log-in yet):\n\n` +
      `${input.link}\n\nIf you did not expect it, ignore this message: nothing happens.${PORTAL_MAIL_SIGNATURE}`,
  }
}

export function removedMessage(to: string, input: { account: string; by: string }): MailMessage {
  return {
    to,
    subject: `You were removed from ${input.account} on Petstore`,
    text:
      `${input.by} removed you from the Petstore account "${input.account}". Your sessions in it have ended; ` +
      `the keys and endpoints of the account keep working for its other members.${PORTAL_MAIL_SIGNATURE}`,
  }
}
