// The portal's messages as RFC 5322 text: 7-bit US-ASCII, lines under 78 characters, except that a link stands
// whole on a line of its own (RFC 5322 allows lines up to 998), so it survives being read raw.
import addressparser from 'nodemailer/lib/addressparser'
import { encodeWords } from 'nodemailer/lib/mime-funcs'

interface Sender {
  /** The From header's value, encoded where it is not ASCII. */
  header: string
  /** The bare address (the SMTP envelope's sender). */
  address: string
  domain: string
}

/** MAIL_FROM (`Name <address>` or an address) as a header value and an envelope sender. */
export function senderOf(from: string): Sender {
  const parsed = (addressparser(from) as { name?: string; address?: string }[])[0]
  const address = parsed?.address ?? from
  const name = parsed?.name ?? ''
  const shownName =
    name === ''
      ? ''
      : /^[\x20-\x7e]*$/.test(name)
        ? `"${name.replace(/["\\]/g, '\\$&')}" `
        : `${encodeWords(name, 'Q', 52, true)} `
  return { header: `${shownName}<${address}>`, address, domain: address.split('@')[1] ?? 'localhost' }
}

const WIDTH = 76

/** Wraps prose at word boundaries to WIDTH; a line that is a URL is left whole. */
function wrapText(text: string): string {
  const out: string[] = []
  for (const line of text.split('\n')) {
    if (line.length <= WIDTH || /^https?:\/\/\S+$/.test(line)) {
      out.push(line)
      continue
    }
    let current = ''
    for (const word of line.split(' ')) {
      if (current !== '' && current.length + 1 + word.length > WIDTH) {
        out.push(current)
        current = word
      } else current = current === '' ? word : `${current} ${word}`
    }
    out.push(current)
  }
  return out.join('\n')
}

export function formatMessage(m: {
  from: Sender
  to: string
  subject: string
  text: string
  messageId: string
  date: Date
}): string {
  // Everything we put in a header is ours or checked (the recipient by parseEmailAddress): still, no line breaks.
  const header = (value: string) => value.replace(/[\r\n]+/g, ' ')
  const body = wrapText(m.text.replace(/\r\n/g, '\n'))
  if (!/^[\x20-\x7e\n]*$/.test(body)) throw new Error('portal mail text must be printable ASCII')
  return [
    `From: ${header(m.from.header)}`,
    `To: ${header(m.to)}`,
    `Subject: ${header(m.subject)}`,
    `Date: ${m.date.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${m.messageId}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=us-ascii',
    'Content-Transfer-Encoding: 7bit',
    '',
    body,
  ]
    .join('\r\n')
    .replace(/(?<!\r)\n/g, '\r\n')
}
