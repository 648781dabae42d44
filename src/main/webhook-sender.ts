// The webhook worker's HTTP requests, made in a thread of their own (webhook-sender-thread.ts): a delivery's
// connection, TLS, request and response, and the garbage they leave, cost the serving event loop about 45 µs an
// event on loopback (BENCHMARKS.md entries 29 and 30), which it now spends on requests. The requests of one turn go
// over in one message, their outcomes come back in one. A thread that dies fails its attempts in flight (the worker
// retries them on its schedule) and is started again at the next.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Logger } from '../kernel/logger.js'
import type { DeliveryResult, WebhookRequest } from '../modules/webhooks/webhook-http.js'
import type { WebhookHttpSettings } from './webhook-http-settings.js'

const LOST: DeliveryResult = {
  ok: false,
  errorClass: 'network',
  error: 'the delivery could not be attempted',
  durationMs: 0,
}

export function createThreadedSender({
  entry,
  settings,
  log,
}: {
  /** The thread's module (dist/webhook-sender.mjs). */
  entry: URL
  settings: WebhookHttpSettings
  log: Logger
}) {
  let thread: Worker | undefined
  const waiting = new Map<number, (result: DeliveryResult) => void>()
  let queued: { id: number; request: WebhookRequest }[] = []
  let nextId = 0

  function started(): Worker {
    if (thread) return thread
    const worker = new Worker(entry, { workerData: settings })
    worker.on('message', (results: [number, DeliveryResult][]) => {
      for (const [id, result] of results) {
        waiting.get(id)?.(result)
        waiting.delete(id)
      }
    })
    worker.on('error', (err) => log.error({ err }, 'the webhook delivery thread failed'))
    worker.on('exit', () => {
      if (thread === worker) thread = undefined
      for (const done of waiting.values()) done(LOST)
      waiting.clear()
    })
    thread = worker
    log.info('webhook delivery thread started')
    return worker
  }

  function flush(): void {
    const batch = queued
    queued = []
    started().postMessage(batch)
  }

  return {
    send(request: WebhookRequest): Promise<DeliveryResult> {
      return new Promise((resolve) => {
        const id = nextId++
        waiting.set(id, resolve)
        if (queued.length === 0) setImmediate(flush)
        queued.push({ id, request })
      })
    },
    /** Stops the thread (after the worker's last step: nothing is in flight). */
    async close(): Promise<void> {
      const worker = thread
      thread = undefined
      await worker?.terminate()
    },
  }
}

/**
 * The thread beside the running bundle (dist/webhook-sender.mjs next to dist/petstore.mjs), or undefined where there
 * is none (the service run from its sources, as some tests do): the worker then sends in process.
 */
export function deliveryThread(settings: WebhookHttpSettings, log: Logger) {
  const entry = new URL('./webhook-sender.mjs', import.meta.url)
  if (entry.protocol !== 'file:' || !existsSync(fileURLToPath(entry))) return undefined
  return createThreadedSender({ entry, settings, log })
}
