// The messages an integrator gets when an operator decides its plan request. Plain 7-bit text (web/mail-format.ts
// refuses anything else), links from the public URL only, each whole on a line of its own.
import { PORTAL_MAIL_SIGNATURE as signature } from '../../mail/signature.js'
import type { MailMessage } from '../../mail/mail.js'

const number = (n: number) => n.toLocaleString('en-US')

/**
 * An operator's reason as US-ASCII: accents dropped (é -> e), typographic quotes and dashes made plain, anything
 * else left as `?`. The page in the portal shows the reason as typed; the mail says so.
 */
function asciiText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[\u2018\u2019\u201a\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\u2026/g, '...')
    .replace(/[^\x20-\x7e\n]/g, '?')
}

export function planApprovedMessage(
  to: string,
  input: { plan: string; perMinute: number; perDay: number; usageLink: string },
): MailMessage {
  return {
    to,
    subject: `Your plan request was approved: ${input.plan}`,
    text:
      `Your request for the ${input.plan} plan was approved. Your account is on it from now on, with ` +
      `${number(input.perMinute)} requests a minute and ${number(input.perDay)} a day for all its keys together.` +
      `\n\nYour plan, limits and usage:\n\n${input.usageLink}${signature}`,
  }
}

export function planDeclinedMessage(
  to: string,
  input: { plan: string; currentPlan: string; reason: string; usageLink: string },
): MailMessage {
  return {
    to,
    subject: `Your plan request was declined: ${input.plan}`,
    text:
      `Your request for the ${input.plan} plan was declined; your account stays on the ${input.currentPlan} plan. ` +
      `The reason given:\n\n${asciiText(input.reason)}\n\nThe usage page shows the reason as written, and lets ` +
      `you ask again:\n\n${input.usageLink}${signature}`,
  }
}
