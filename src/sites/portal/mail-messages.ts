// The text of every message the portal sends. Plain text (wrapped by mail-format.ts); each link is a whole URL
// on a line of its own, so it can be copied out of the raw message.
import { PORTAL_MAIL_SIGNATURE } from '../../mail/signature.js'
import type { MailMessage } from '../../mail/mail.js'

export const RESET_TTL_MS = 60 * 60 * 1000

// The verification message is the console's too (an operator's `Resend verification`): see accounts/verification.ts.
const signature = PORTAL_MAIL_SIGNATURE

export function alreadyRegisteredMessage(to: string, loginLink: string, resetLink: string): MailMessage {
  return {
    to,
    subject: 'You already have an account',
    text:
      `Someone (perhaps you) tried to sign up with this address, but you already have a Petstore account.\n\n` +
      `Log in:\n\n${loginLink}\n\nForgot your password? Choose a new one:\n\n${resetLink}\n\nIf it was not you, ` +
      `ignore this message: nothing changed.${signature}`,
  }
}

export function resetMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Reset your password',
    text:
      `Open this link to choose a new password (it works once, for 1 hour):\n\n${link}\n\nIf you did not ask for ` +
      `it, ignore this message: your password is unchanged.${signature}`,
  }
}

// Account settings (settings.routes.ts).

export const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60 * 1000

export function passwordChangedMessage(to: string, resetLink: string): MailMessage {
  return {
    to,
    subject: 'Your password was changed',
    text:
      `The password of your Petstore account was changed from the account page, and every other session ` +
      `was logged out.\n\nIf this was not you, choose a new password now:\n\n${resetLink}${signature}`,
  }
}

/** To the new address of a change of address: the link that makes the change. */
export function emailChangeLinkMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Confirm your new email address',
    text:
      `Someone asked to move a Petstore account to this address. Open this link to confirm (it works once, ` +
      `for 24 hours):\n\n${link}\n\nIf you did not ask for it, ignore this message: nothing changes.${signature}`,
  }
}

/** To the new address of a change of address, when it already has an account: no link, nothing changes. */
export function emailChangeTakenMessage(to: string): MailMessage {
  return {
    to,
    subject: 'This address already has an account',
    text:
      `Someone (perhaps you) asked to move another Petstore account to this address, but this address ` +
      `already has an account, so nothing changed.\n\nTo use this address for the other account, delete ` +
      `this one first. If it was not you, ignore this message.${signature}`,
  }
}

/** To the old address of a change of address. No link that undoes it: resetting the password cancels it. */
export function emailChangeRequestedMessage(to: string, newEmail: string, resetLink: string): MailMessage {
  return {
    to,
    subject: 'Your email address is being changed',
    text:
      `Someone asked to change the address of your Petstore account to ${newEmail}. The change takes ` +
      `effect when the link sent there is opened.\n\nIf this was not you, choose a new password now: that ` +
      `cancels the change and logs out every session.\n\n${resetLink}${signature}`,
  }
}

export function accountDeletedMessage(to: string): MailMessage {
  return {
    to,
    subject: 'Your account was deleted',
    text:
      `Your Petstore account was deleted from its account page. Its API keys no longer work, and its ` +
      `pets, orders and messages are removed within a day. You can sign up again with this address at any ` +
      `time.${signature}`,
  }
}

/** To the old address once a change of address is made: the owner learns at once if it was not them. */
export function emailChangedMessage(to: string, newEmail: string): MailMessage {
  return {
    to,
    subject: 'Your email address was changed',
    text:
      `The address of your Petstore account was changed to ${newEmail}: from now on you log in with it, and ` +
      `our mail goes there. This address no longer opens the account.\n\nIf this was not you, reply to this ` +
      `message or contact the Petstore operators straight away: they can suspend the account and its keys ` +
      `while they find out what happened.${signature}`,
  }
}

/** A sign-in from a browser the account had not been used from (new-browser.ts). */
export function newSignInMessage(
  to: string,
  sign: { at: string; browser: string; address: string; accountLink: string; resetLink: string },
): MailMessage {
  return {
    to,
    subject: 'New sign-in to your Petstore account',
    text:
      `Your Petstore account was signed in to from a browser it had not been used from before.\n\n` +
      `When: ${sign.at}\nBrowser: ${sign.browser}\nFrom: ${sign.address}\n\nIf this was you, there is nothing to ` +
      `do.\n\nIf it was not you, someone has your password: change it on the account page, where "Log out other ` +
      `sessions" ends theirs:\n\n${sign.accountLink}\n\nIf you cannot log in, choose a new password here (every ` +
      `session is logged out):\n\n${sign.resetLink}${signature}`,
  }
}
