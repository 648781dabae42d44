// Mail about a change to how an account signs in (issue 37): a second factor or passkey added or removed, recovery
// codes used or made anew, the second-factor step locked after wrong codes, a passkey refused as a copy. Each names
// the time and what to do if it was not them, with a link to the account page, whose sessions list ends theirs.
import type { MailMessage } from '../../mail/mail.js'
import { PORTAL_MAIL_SIGNATURE } from '../../mail/signature.js'

export type SecurityEvent =
  | { kind: 'app_added' | 'recovery_codes_regenerated' }
  | { kind: 'app_removed'; twoFactorOff: boolean }
  | { kind: 'passkey_added'; name: string }
  | { kind: 'passkey_removed'; name: string; twoFactorOff: boolean }
  | { kind: 'recovery_code_used'; left: number }
  | { kind: 'locked'; until: string }
  | { kind: 'passkey_cloned'; name: string }

const OFF = ' Two-factor log-in is now off: a password alone opens your account.'

function what(event: SecurityEvent): { subject: string; text: string } {
  switch (event.kind) {
    case 'app_added':
      return { subject: 'Authenticator app added', text: 'An authenticator app was added to your Petstore account.' }
    case 'app_removed':
      return {
        subject: 'Authenticator app removed',
        text: `The authenticator app was removed from your Petstore account.${event.twoFactorOff ? OFF : ''}`,
      }
    case 'passkey_added':
      return { subject: 'Passkey added', text: `A passkey ("${event.name}") was added to your Petstore account.` }
    case 'passkey_removed':
      return {
        subject: 'Passkey removed',
        text: `The passkey "${event.name}" was removed from your Petstore account.${event.twoFactorOff ? OFF : ''}`,
      }
    case 'recovery_codes_regenerated':
      return {
        subject: 'New recovery codes',
        text: 'New recovery codes were made for your Petstore account; the earlier ones no longer work.',
      }
    case 'recovery_code_used':
      return {
        subject: 'Recovery code used',
        text:
          `A recovery code was used to log in to your Petstore account. ${event.left} unused ` +
          `${event.left === 1 ? 'code is' : 'codes are'} left; you can make a new set on the account page.`,
      }
    case 'locked':
      return {
        subject: 'Two-factor log-in locked',
        text:
          'Too many wrong codes were entered after your password at log-in, so the second step of log-in is locked ' +
          `until ${event.until}. Someone who types wrong codes knows your password.`,
      }
    case 'passkey_cloned':
      return {
        subject: 'Passkey refused',
        text:
          `A log-in with your passkey "${event.name}" was refused: the passkey's signature counter went backwards, ` +
          'which happens when it has been copied to another device. Remove that passkey from your account and add it ' +
          'again.',
      }
  }
}

export function securityMessage(
  to: string,
  event: SecurityEvent,
  at: string,
  links: { account: string; reset: string },
): MailMessage {
  const { subject, text } = what(event)
  return {
    to,
    subject,
    text:
      `${text}\n\nWhen: ${at}\n\nIf this was you, there is nothing to do.\n\nIf it was not you, change your password ` +
      `and end the other sessions on the account page:\n\n${links.account}\n\nIf you cannot log in, choose a new ` +
      `password here (every session is logged out):\n\n${links.reset}${PORTAL_MAIL_SIGNATURE}`,
  }
}
