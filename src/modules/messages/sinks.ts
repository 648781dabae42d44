// Where the worker delivers messages. `log`: one structured line in the service log. `webhook`: an HTTP POST
// signed per the Standard Webhooks specification (webhook-id = the message id, so receivers can drop
// duplicates of an at-least-once delivery).
import type { Logger } from '../../kernel/logger.js'
import { Webhook } from 'standardwebhooks'
import type { QueuedMessage } from './messages.repository.js'

export interface MessageSink {
  /** Resolves when delivered; rejects with a reason to retry later. */
  deliver(message: QueuedMessage): Promise<void>
}

/**
 * `text`: the line carries the message's text (MESSAGES_LOG_TEXT=on). Off by default: a message is customer
 * content, and logs are kept, shipped and read far more widely than the database; the line then has its length.
 */
export function createLogSink(log: Logger, options: { text?: boolean } = {}): MessageSink {
  return {
    async deliver(m) {
      const content = options.text ? { message: m.message } : { length: m.message.length }
      log.info({ messageId: m.id, accountId: m.accountId, createdAt: m.createdAt, ...content }, 'message delivered')
    },
  }
}

function webhookPayload(m: QueuedMessage): string {
  return JSON.stringify({
    type: 'message.created',
    timestamp: m.createdAt,
    data: { id: m.id, message: m.message, status: 'queued', createdAt: m.createdAt },
  })
}

export function createWebhookSink(input: {
  url: string
  secret: string
  timeoutMs: number
  now?: () => number
}): MessageSink {
  const signer = new Webhook(input.secret)
  const now = input.now ?? Date.now
  return {
    async deliver(m) {
      const body = webhookPayload(m)
      // The signature's timestamp is the real time of sending: receivers check it against their own clock.
      const sentAt = new Date(now())
      const response = await fetch(input.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': m.id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signer.sign(m.id, sentAt, body),
        },
        body,
        // Standard Webhooks: only a 2xx is a success; a 3xx is a failure and is not followed.
        redirect: 'manual',
        signal: AbortSignal.timeout(input.timeoutMs),
      })
      await response.body?.cancel()
      if (!response.ok) throw new Error(`webhook answered ${response.status}`)
    },
  }
}
