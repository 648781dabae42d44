// The webhooks' services (issue 36), built once at boot: the secret box their signing secrets are sealed in, the
// address policy every URL is held to (on save and at each attempt), the HTTP client that delivers, the endpoints
// and events the API and the portal use, and the delivery worker `serve` runs.
import type { Kysely } from 'kysely'
import type { Clock } from '../kernel/clock.js'
import type { Config } from '../kernel/config.js'
import type { Logger } from '../kernel/logger.js'
import { createSecretBox, DEVELOPMENT_SECRETS_KEY, parseSecretsKeys } from '../kernel/secret-box.js'
import type { Metrics } from '../ops/metrics.js'
import type { Mailer } from '../mail/mail.js'
import { ownersOf } from '../modules/integrators/account-owners.js'
import { endpointDisabledMessage } from '../modules/webhooks/endpoint-disabled-mail.js'
import type { Database } from '../db/schema.js'
import type { Engine } from '../db/engine.js'
import { createDeliveriesRepository } from '../modules/webhooks/deliveries.repository.js'
import { createEventStreamsRepository } from '../modules/webhooks/event-streams.repository.js'
import { createDeliveryLog } from '../modules/webhooks/delivery-log.js'
import { createDeliveryWorker } from '../modules/webhooks/delivery-worker.js'
import { createEndpointsRepository } from '../modules/webhooks/endpoints.repository.js'
import { createWebhookEndpoints } from '../modules/webhooks/endpoints.service.js'
import type { EventsRepository } from '../modules/webhooks/events.repository.js'
import { webhookHttpFrom, webhookHttpSettings } from './webhook-http-settings.js'

// Deliveries claimed per step. Each step costs two commits (the claim, the outcomes) and a group-commit wait or two
// whatever its size: with 20, the worker fell behind a saturating write load; 100 keeps up (BENCHMARKS.md 28).
const DELIVERY_BATCH = 100

export function webhookServices({
  config,
  db,
  clock,
  metrics,
  mailer,
  engine,
  events,
}: {
  config: Config
  /** The events kept for integrators (built by services.ts whatever WEBHOOKS says: they are purged either way). */
  events: EventsRepository
  db: Kysely<Database>
  /** How writes commit (the worker's outcomes share SQLite's commit groups with the requests'). */
  engine?: Engine
  clock: Clock
  metrics: Pick<Metrics, 'webhookAttempt'>
  /** Mails an account's owner when the worker disables one of its endpoints (absent: no mail). */
  mailer?: Mailer
}) {
  // Production refuses to start without a key (config.ts); elsewhere the public development key seals them.
  const secrets = createSecretBox(config.secretsKey ?? parseSecretsKeys(DEVELOPMENT_SECRETS_KEY))
  const httpSettings = webhookHttpSettings(config)
  const http = webhookHttpFrom(httpSettings)
  const endpoints = createWebhookEndpoints({ db, clock, secrets, checkTarget: http.check })
  /**
   * The owner of the endpoint's account hears that the worker disabled it (with a link where the portal runs), off
   * the worker's path: a slow mail server holds up no delivery.
   */
  const mailOwner = (endpointId: string, reason: 'gone' | 'failing', log: Logger) =>
    mailer?.sendLater(
      async () => {
        const endpoint = await createEndpointsRepository(db).byId(endpointId)
        const owner = endpoint && (await ownersOf(db, [endpoint.account_id])).get(endpoint.account_id)
        if (!endpoint || !owner) return undefined
        const link = config.portal ? `${config.publicUrl}/portal/webhooks/${endpointId}` : undefined
        const failingDays = Math.round(config.endpointDisableAfterMs / 86_400_000)
        return endpointDisabledMessage(owner.email, { url: endpoint.url, reason, failingDays, link })
      },
      (err) => log.warn({ err, endpointId }, 'the mail about a disabled webhook endpoint was not sent'),
    )
  return {
    endpoints,
    events,
    /** What the delivery thread builds its own client from (webhook-sender.ts). */
    httpSettings,
    /** A delivery's HTTP request, made in process (the delivery thread's stand-in should it stop). */
    send: http.send,
    /** Each endpoint's attempts, and sending events again. */
    deliveryLog: createDeliveryLog({ db, clock }),
    /**
     * The worker that delivers; `serve` starts it, with `send` in a thread of its own (webhook-sender.ts); tests run
     * its steps themselves, sending in process.
     */
    worker: (log: Logger, send: Parameters<typeof createDeliveryWorker>[0]['send'] = http.send) =>
      createDeliveryWorker({
        deliveries: createDeliveriesRepository({ db, clock, engine }),
        streams: createEventStreamsRepository({ db, clock, engine }),
        endpoints: createEndpointsRepository(db),
        signingSecrets: endpoints.signingSecrets,
        disable: endpoints.disableForDeliveries,
        counted: metrics.webhookAttempt,
        onDisabled: async (endpointId, reason) => mailOwner(endpointId, reason, log),
        send,
        clock,
        log,
        retryScheduleMs: config.deliveryRetrySchedule,
        disableAfterMs: config.endpointDisableAfterMs,
        batchSize: DELIVERY_BATCH,
        // Attempts of a batch run side by side: a lease outlasts the slowest one by a margin.
        leaseMs: config.deliveryTimeoutMs + 30_000,
      }),
  }
}
