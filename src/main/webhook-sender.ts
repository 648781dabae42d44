// The webhook worker's HTTP requests, made in a thread of their own (webhook-sender-thread.ts): a delivery's
// connection, TLS, request and response, and the garbage they leave, cost the serving event loop about 45 µs an
// event on loopback (BENCHMARKS.md entries 29 and 30), which it now spends on requests. The requests of one turn go
// over in one message, their outcomes come back in one. Should the thread stop (a crash, a message it could not
// read), its attempts in flight and every later one are made in process: nothing is recorded as the endpoint's
// failure for what was ours, and a request the receiver may have had already goes again (at least once).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Logger } from '../kernel/logger.js'
import type { DeliveryResult, WebhookRequest } from '../modules/webhooks/webhook-http.js'
import type { WebhookHttpSettings } from './webhook-http-settings.js'

type Send = (request: WebhookRequest) => Promise<DeliveryResult>

export function createThreadedSender({
  entry,
  settings,
  log,
  inProcess,
}: {
  /** The thread's module (dist/webhook-sender.mjs). */
  entry: URL
  settings: WebhookHttpSettings
  log: Logger
  /** How to send without the thread (the same client, in process), once it has stopped. */
  inProcess: Send
}) {
  let thread: Worker | undefined
  let stopped = false
  /** Requests handed to the thread, by id, until their outcome comes back. */
  const inFlight = new Map<number, { request: WebhookRequest; resolve: (result: DeliveryResult) => void }>()
  let queued: { id: number; request: WebhookRequest; resolve: (result: DeliveryResult) => void }[] = []
  let nextId = 0

  function lost(reason: string, err?: unknown): void {
    if (stopped) return
    stopped = true
    log.error({ err }, `the webhook delivery thread ${reason}; deliveries are made in process from now on`)
    for (const { request, resolve } of inFlight.values()) void inProcess(request).then(resolve)
    inFlight.clear()
    void thread?.terminate()
    thread = undefined
  }

  function started(): Worker {
    if (thread) return thread
    // Its heap bounded like the service's own (bin/petstore.js): it holds a batch's requests and answers, a few MB.
    const worker = new Worker(entry, { workerData: settings, resourceLimits: { maxOldGenerationSizeMb: 64 } })
    worker.on('message', (results: [number, DeliveryResult][]) => {
      for (const [id, result] of results) {
        inFlight.get(id)?.resolve(result)
        inFlight.delete(id)
      }
    })
    worker.on('messageerror', (err) => lost('sent an answer that could not be read', err))
    worker.on('error', (err) => lost('failed', err))
    worker.on('exit', (code) => lost(`stopped (exit code ${code})`))
    thread = worker
    log.info('webhook delivery thread started')
    return worker
  }

  function flush(): void {
    const batch = queued
    queued = []
    if (stopped) {
      for (const { request, resolve } of batch) void inProcess(request).then(resolve)
      return
    }
    for (const { id, request, resolve } of batch) inFlight.set(id, { request, resolve })
    started().postMessage(batch.map(({ id, request }) => ({ id, request })))
  }

  return {
    send(request: WebhookRequest): Promise<DeliveryResult> {
      return new Promise((resolve) => {
        if (queued.length === 0) setImmediate(flush)
        queued.push({ id: nextId++, request, resolve })
      })
    },
    /** Stops the thread (after the worker's last step: nothing is in flight; anything still is made in process). */
    async close(): Promise<void> {
      const worker = thread
      stopped = true
      thread = undefined
      for (const { request, resolve } of inFlight.values()) void inProcess(request).then(resolve)
      inFlight.clear()
      await worker?.terminate()
    },
  }
}

/**
 * The thread beside the running bundle (dist/webhook-sender.mjs next to dist/petstore.mjs), or undefined where there
 * is none (the service run from its sources, as some tests do): the worker then sends in process.
 */
export function deliveryThread(settings: WebhookHttpSettings, log: Logger, inProcess: Send) {
  const entry = new URL('./webhook-sender.mjs', import.meta.url)
  if (entry.protocol !== 'file:' || !existsSync(fileURLToPath(entry))) return undefined
  return createThreadedSender({ entry, settings, log, inProcess })
}
