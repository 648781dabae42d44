// The message an account's owner gets when the service disables one of its webhook endpoints: it answered 410, or
// every attempt failed for WEBHOOK_DISABLE_AFTER. Plain 7-bit text (mail-format.ts refuses anything else): the URL
// as the URL parser writes it (punycode host, percent-encoded path), links from the public URL only.
import type { MailMessage } from '../../mail/mail.js'
import { PORTAL_MAIL_SIGNATURE as signature } from '../../mail/signature.js'

export function endpointDisabledMessage(
  to: string,
  input: { url: string; reason: 'gone' | 'failing'; failingDays: number; link?: string },
): MailMessage {
  const url = new URL(input.url).href
  const why =
    input.reason === 'gone'
      ? 'it answered 410 Gone, which says it is no longer there'
      : `every delivery to it has failed for ${input.failingDays} days`
  const next = input.link
    ? `\n\nIts delivery log, and the button to enable it again once it answers:\n\n${input.link}`
    : '\n\nEnable it again through the API (PATCH /v1/webhook-endpoints/{id} with "enabled": true) once it answers.'
  return {
    to,
    subject: 'A webhook endpoint of your account was disabled',
    text:
      `We disabled your webhook endpoint\n\n${url}\n\nbecause ${why}. Events are no longer sent to it, and none are ` +
      `recorded for it while it is disabled.${next}${signature}`,
  }
}
