// Outgoing mail, through nodemailer: an SMTP server (`smtp://`, `smtps://`), or `file:DIR`, where each message
// is written as an RFC 5322 `.eml` file. Messages are plain 7-bit text built here (see mail-format.ts), so a link
// copied out of the raw file works as is; nodemailer would otherwise quoted-printable-encode any line over 76
// characters and break the link with soft line breaks. The envelope recipient is always given explicitly: no
// parsing of a `To` value can add a second one.
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import nodemailer from 'nodemailer'
import { formatMessage, senderOf } from './mail-format.js'

export interface MailMessage {
  /** One address, already checked by parseEmailAddress (never a list). */
  to: string
  subject: string
  text: string
}

/** Work done off the request path that may end in one message (or none). */
export type MailJob = () => Promise<MailMessage | undefined>

export interface Mailer {
  send(message: MailMessage): Promise<void>
  /**
   * Runs without the request waiting: a message, or a job that looks things up and decides what to send. The
   * answer to a request then takes the same time whatever the job finds. A failure goes to onError.
   */
  sendLater(message: MailMessage | MailJob, onError: (error: unknown) => void): void
  /** Resolves when everything handed to sendLater has been sent or has failed (tests, shutdown). */
  settled(): Promise<void>
  close(): void
}

export function createMailer({ url, from }: { url: string; from: string }): Mailer {
  const dir = url.startsWith('file:') ? url.slice('file:'.length) : undefined
  const transport = dir === undefined ? nodemailer.createTransport(url) : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  const sender = senderOf(from)
  const pending = new Set<Promise<void>>()

  async function send(message: MailMessage): Promise<void> {
    const raw = formatMessage({ from: sender, ...message, messageId: `${randomBytes(12).toString('hex')}@${sender.domain}`, date: new Date() })
    const info = await transport.sendMail({ envelope: { from: sender.address, to: [message.to] }, raw })
    if (dir === undefined) return
    await mkdir(dir, { recursive: true })
    // Sortable by time, unique across instances writing into one folder.
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`
    await writeFile(join(dir, name), (info as { message: Buffer }).message)
  }

  return {
    send,
    sendLater(message, onError) {
      const sending = (async () => {
        // Start after the answer is written (the next turn of the event loop, past the check phase where the
        // batched responses go out): on SQLite a look-up runs synchronously and would otherwise delay the answer.
        await new Promise((resolve) => setTimeout(resolve, 0))
        const built = typeof message === 'function' ? await message() : message
        if (built) await send(built)
      })().catch(onError)
      pending.add(sending)
      void sending.finally(() => pending.delete(sending))
    },
    async settled() {
      // A job may hand over more work while we wait: loop until nothing is pending.
      while (pending.size > 0) await Promise.all([...pending])
    },
    close: () => transport.close(),
  }
}
