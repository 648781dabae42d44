// Outgoing mail, through nodemailer: an SMTP server (`smtp://`, `smtps://`), or `file:DIR`, where each message
// is written as an RFC 5322 `.eml` file (nodemailer's stream transport builds the message, we store it).
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import nodemailer from 'nodemailer'

export interface MailMessage {
  to: string
  subject: string
  text: string
}

export interface Mailer {
  send(message: MailMessage): Promise<void>
  /** Sends without waiting (the answer to a request must not take longer when a message goes out); a failure goes to onError. */
  sendLater(message: MailMessage, onError: (error: unknown) => void): void
  /** Resolves when every message handed to sendLater has been sent or has failed (tests, shutdown). */
  settled(): Promise<void>
  close(): void
}

export function createMailer({ url, from }: { url: string; from: string }): Mailer {
  const dir = url.startsWith('file:') ? url.slice('file:'.length) : undefined
  const transport = dir === undefined ? nodemailer.createTransport(url) : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  const pending = new Set<Promise<void>>()

  async function send(message: MailMessage): Promise<void> {
    const info = await transport.sendMail({ from, ...message })
    if (dir === undefined) return
    await mkdir(dir, { recursive: true })
    // Sortable by time, unique across instances writing into one folder.
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`
    await writeFile(join(dir, name), (info as { message: Buffer }).message)
  }

  return {
    send,
    sendLater(message, onError) {
      const sending = send(message).catch(onError)
      pending.add(sending)
      void sending.finally(() => pending.delete(sending))
    },
    async settled() {
      await Promise.all([...pending])
    },
    close: () => transport.close(),
  }
}
