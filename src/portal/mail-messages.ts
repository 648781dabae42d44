// The text of every message the portal sends. Plain text: links are whole URLs, nothing to render.
import type { MailMessage } from './mail.js'

export const VERIFY_TTL_MS = 24 * 60 * 60 * 1000
export const RESET_TTL_MS = 60 * 60 * 1000

const signature = '\n\n-- \nPetstore developer portal\n'

export function verifyMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Verify your email address',
    text: `Welcome to Petstore.\n\nOpen this link to verify your address (it works once, for 24 hours):\n\n${link}\n\nIf you did not sign up, ignore this message.${signature}`,
  }
}

export function alreadyRegisteredMessage(to: string, loginLink: string, resetLink: string): MailMessage {
  return {
    to,
    subject: 'You already have an account',
    text:
      `Someone (perhaps you) tried to sign up with this address, but you already have a Petstore account.\n\n` +
      `Log in: ${loginLink}\nForgot your password? ${resetLink}\n\nIf it was not you, ignore this message: nothing changed.${signature}`,
  }
}

export function resetMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: 'Reset your password',
    text: `Open this link to choose a new password (it works once, for 1 hour):\n\n${link}\n\nIf you did not ask for it, ignore this message: your password is unchanged.${signature}`,
  }
}
