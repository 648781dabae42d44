// The delivery thread (webhook-sender.ts starts it; scripts/bundle.mjs builds it as dist/webhook-sender.mjs): makes
// the HTTP requests of the webhook worker's attempts, each batch as it comes, and answers every batch with its
// outcomes. Nothing else happens here: the worker claims, signs, records and logs on the main thread.
import { parentPort, workerData } from 'node:worker_threads'
import type { DeliveryResult, WebhookRequest } from '../modules/webhooks/webhook-http.js'
import { webhookHttpFrom, type WebhookHttpSettings } from './webhook-http-settings.js'

const http = webhookHttpFrom(workerData as WebhookHttpSettings)

parentPort?.on('message', (batch: { id: number; request: WebhookRequest }[]) => {
  void http
    .sendAll(batch.map(({ request }) => request))
    .then((results) =>
      parentPort?.postMessage(results.map((result, i): [number, DeliveryResult] => [batch[i]!.id, result])),
    )
})
