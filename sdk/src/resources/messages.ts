import type { ApiPromise } from '../api-promise.js'
import { call, type RequestOptions, type TransportSettings } from '../transport.js'
import type { Message } from '../types.js'

/** `ps.messages`: the quickstart messages interface, at `messagesUrl` (its own listener, no version segment). */
export class Messages {
  constructor(
    private readonly settings: TransportSettings,
    private readonly messagesUrl: string,
  ) {}

  /** `POST /messages`: queues a message (1–4,096 characters); sent with an Idempotency-Key. */
  send(text: string, options?: RequestOptions): ApiPromise<Message> {
    return call(
      this.settings,
      () => ({ method: 'POST', url: `${this.messagesUrl}/messages`, body: { message: text }, options }),
      (answer) => answer.data as Message,
    )
  }

  /** `GET /messages/{id}`: the message in its current state (`queued`, `delivered` or `failed`). */
  get(id: string, options?: RequestOptions): ApiPromise<Message> {
    return call(
      this.settings,
      () => ({ method: 'GET', url: `${this.messagesUrl}/messages/${encodeURIComponent(id)}`, options }),
      (answer) => answer.data as Message,
    )
  }
}
