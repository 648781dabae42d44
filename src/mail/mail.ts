// Outgoing mail, through nodemailer: an SMTP server (`smtp://`, `smtps://`), or `file:DIR`, where each message
// is written as an RFC 5322 `.eml` file. Messages are plain 7-bit text built here (see mail-format.ts), so a link
// copied out of the raw file works as is; nodemailer would otherwise quoted-printable-encode any line over 76
// characters and break the link with soft line breaks. The envelope recipient is always given explicitly: no
// parsing of a `To` value can add a second one.
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import type { Transporter } from 'nodemailer'
import { formatMessage, senderOf } from './mail-format.js'
import type { OutageLog } from '../ops/outage-log.js'

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
   * answer to a request then takes the same time whatever the job finds. A failure goes to onError. `answer`:
   * the response the job must not delay; the job starts once it has been handed to the connection.
   */
  sendLater(
    message: MailMessage | MailJob,
    onError: (error: unknown) => void,
    answer?: { raw: NodeJS.EventEmitter & { writableFinished: boolean } },
  ): void
  /** Resolves when everything handed to sendLater has been sent or has failed (tests, shutdown). */
  settled(): Promise<void>
  close(): void
}

/** `outage`: where failures to reach the mail server are counted (one warning per outage, not a stack per mail). */
export function createMailer({ url, from, outage }: { url: string; from: string; outage?: OutageLog }): Mailer {
  const dir = url.startsWith('file:') ? url.slice('file:'.length) : undefined
  // nodemailer is loaded with the first message, not at every start (~60 ms).
  let made: Transporter | undefined
  const transport = () => {
    const nodemailer = createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer')
    made ??=
      dir === undefined
        ? nodemailer.createTransport(url)
        : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
    return made
  }
  const sender = senderOf(from)
  const pending = new Set<Promise<void>>()

  async function send(message: MailMessage): Promise<void> {
    const raw = formatMessage({
      from: sender,
      ...message,
      messageId: `${randomBytes(12).toString('hex')}@${sender.domain}`,
      date: new Date(),
    })
    const info = await transport()
      .sendMail({ envelope: { from: sender.address, to: [message.to] }, raw })
      .then(
        (sent) => (outage?.ok(), sent),
        (error: unknown) => {
          outage?.failed(error)
          throw error
        },
      )
    if (dir === undefined) return
    await mkdir(dir, { recursive: true })
    // Sortable by time, unique across instances writing into one folder.
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`
    await writeFile(join(dir, name), (info as { message: Buffer }).message)
  }

  return {
    send,
    sendLater(message, onError, answer) {
      const sending = (async () => {
        // Start after the answer is written: on SQLite a look-up runs synchronously and would otherwise delay it.
        // The next turn of the event loop is not always late enough: a page whose answer waits for a write (its
        // session, in a SQLite commit group) is written a turn or more later, and on a loaded machine a job that
        // ran first made a reset request for a known address measurably slower than for an unknown one.
        const raw = answer?.raw
        if (raw && !raw.writableFinished)
          await new Promise((resolve) => raw.once('finish', resolve).once('close', resolve))
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
    close: () => made?.close(),
  }
}
