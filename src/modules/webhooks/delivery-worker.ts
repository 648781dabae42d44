// Delivers events to endpoints: claims the endpoints' streams of new events (their first attempts, 0021) and the due
// deliveries (retries, tests, events sent again) under a lease, sends each signed (Standard Webhooks) to the address
// checked at this attempt, and records the attempt and what follows from it: delivered; another attempt on
// WEBHOOK_RETRY_SCHEDULE (a 429's or 503's Retry-After honoured, up to 2 hours past the schedule); failed after the
// last attempt; the endpoint disabled on a 410, or when it has failed every attempt for WEBHOOK_DISABLE_AFTER. At least
// once: a worker that dies mid-attempt leaves the lease to run out.
import type { Clock } from '../../kernel/clock.js'
import type { Logger } from '../../kernel/logger.js'
import { retryDelay } from '../../kernel/retry-delay.js'
import type { AttemptRecord, ClaimedDelivery } from './claimed-delivery.js'
import type { DeliveriesRepository } from './deliveries.repository.js'
import type { EndpointsRepository } from './endpoints.repository.js'
import type { ClaimedStream, EventStreamsRepository } from './event-streams.repository.js'
import { eventJson } from './events.repository.js'
import { signDelivery } from './signature.js'
import type { DeliveryResult } from './webhook-http.js'

const RETRY_AFTER_MAX_EXTRA_MS = 2 * 3_600_000
/** Endpoints whose streams one step reads (each up to a batch of events). */
const STREAMS_PER_STEP = 10

interface DeliveryWorkerOptions {
  deliveries: DeliveriesRepository
  streams: EventStreamsRepository
  endpoints: EndpointsRepository
  /** The secrets a delivery to the endpoint is signed with now (endpoints.service.ts). */
  signingSecrets: (endpoint: NonNullable<Awaited<ReturnType<EndpointsRepository['byId']>>>) => string[]
  send: (request: { url: string; headers: Record<string, string>; body: string }) => Promise<DeliveryResult>
  clock: Clock
  log: Logger
  retryScheduleMs: number[]
  disableAfterMs: number
  /** Disables an endpoint for what its deliveries showed, with its audit entry; false when it was not enabled. */
  disable: (endpointId: string, reason: 'gone' | 'failing') => Promise<boolean>
  /** Told of every attempt's outcome (the metrics). */
  counted?: (outcome: AttemptRecord['outcome']['kind']) => void
  /** Told when an endpoint is disabled by the worker (its account is mailed). */
  onDisabled?: (endpointId: string, reason: 'gone' | 'failing') => Promise<void>
  random?: () => number
  batchSize?: number
  leaseMs: number
}

export function createDeliveryWorker(options: DeliveryWorkerOptions) {
  const { deliveries, streams, endpoints, clock, log, retryScheduleMs, random = Math.random } = options
  const maxAttempts = retryScheduleMs.length + 1
  const batchSize = options.batchSize ?? 20

  function nextStep(delivery: ClaimedDelivery, result: DeliveryResult): AttemptRecord['outcome'] {
    if (result.ok) return { kind: 'delivered' }
    if (result.status === 410 || delivery.attempts >= maxAttempts) return { kind: 'failed' }
    const scheduled = retryDelay(retryScheduleMs, delivery.attempts, random)
    const asked = (result.retryAfterSeconds ?? 0) * 1000
    return {
      kind: 'retry',
      retryAt: clock.now() + Math.max(scheduled, Math.min(asked, scheduled + RETRY_AFTER_MAX_EXTRA_MS)),
    }
  }

  type Endpoint = NonNullable<Awaited<ReturnType<EndpointsRepository['byId']>>>

  /** One attempt: sent (or not, for an endpoint gone or disabled), and what it is to be recorded as. */
  async function attempt(
    delivery: ClaimedDelivery,
    endpoint: Endpoint | undefined,
    secretsOf: (e: Endpoint) => string[],
  ) {
    const attemptedAt = clock.now()
    if (endpoint === undefined || Number(endpoint.enabled) !== 1) {
      const error = endpoint === undefined ? 'the endpoint was deleted' : 'the endpoint is disabled'
      const record: AttemptRecord = {
        delivery,
        attemptedAt,
        errorClass: 'endpoint_disabled',
        error,
        durationMs: 0,
        outcome: { kind: 'failed' },
      }
      return { record, result: undefined }
    }
    const body = eventJson(delivery.event)
    const headers = signDelivery({
      eventId: delivery.event.id,
      body,
      secrets: secretsOf(endpoint),
      at: new Date(clock.now()),
    })
    const result = await options.send({ url: endpoint.url, headers: { ...headers }, body })
    const record: AttemptRecord = {
      delivery,
      attemptedAt,
      statusCode: result.status,
      errorClass: result.errorClass,
      error: result.error,
      durationMs: result.durationMs,
      responseExcerpt: result.responseExcerpt,
      outcome: nextStep(delivery, result),
    }
    return { record, result }
  }

  function logged({ delivery, outcome }: AttemptRecord, result: DeliveryResult | undefined): void {
    options.counted?.(outcome.kind)
    log.info(
      {
        eventId: delivery.event.id,
        endpointId: delivery.endpointId,
        attempt: delivery.attempts,
        outcome: outcome.kind,
        status: result?.status,
        errorClass: result?.errorClass ?? (result ? undefined : 'endpoint_disabled'),
        durationMs: Math.round(result?.durationMs ?? 0),
      },
      'webhook delivery attempt',
    )
  }

  /** An endpoint's run of failures: started, ended, or long enough (or a 410) to disable it. */
  async function health(
    endpointId: string,
    failingSince: bigint | number | null,
    result: DeliveryResult,
  ): Promise<bigint | number | null> {
    const now = clock.now()
    if (result.ok) {
      if (failingSince !== null) await endpoints.setFailingSince(endpointId, null)
      return null
    }
    const since = failingSince === null ? now : Number(failingSince)
    if (failingSince === null) await endpoints.setFailingSince(endpointId, BigInt(now))
    const reason = result.status === 410 ? 'gone' : now - since >= options.disableAfterMs ? 'failing' : undefined
    if (reason === undefined || !(await options.disable(endpointId, reason))) return since
    await deliveries.failPendingOf(endpointId)
    log.warn({ endpointId, reason }, 'webhook endpoint disabled')
    await options.onDisabled?.(endpointId, reason)
    return since
  }

  /** The due deliveries and the streams' new events; whether more may be waiting (a batch was full). */
  async function claim(): Promise<{ batch: ClaimedDelivery[]; claimed: ClaimedStream[]; full: boolean }> {
    const { leaseMs } = options
    const due = await deliveries.claimDue({ limit: batchSize, leaseMs })
    const claimed = await streams.claim({ streams: STREAMS_PER_STEP, perStream: batchSize, leaseMs })
    const firsts = claimed.flatMap((stream) =>
      stream.events.map(
        (event): ClaimedDelivery => ({
          seq: undefined,
          endpointId: stream.endpointId,
          accountId: stream.accountId,
          attempts: 1,
          event,
        }),
      ),
    )
    const full = due.length >= batchSize || claimed.length >= STREAMS_PER_STEP || claimed.some((s) => s.full)
    return { batch: [...due, ...firsts], claimed, full }
  }

  /** One step: how many attempts it made, and whether a batch was full (more may be waiting). */
  async function step(): Promise<{ attempts: number; full: boolean }> {
    const { batch, claimed, full } = await claim()
    if (batch.length === 0 && claimed.length === 0) return { attempts: 0, full }
    const ids = [...new Set(batch.map((d) => d.endpointId))]
    const found = new Map(
      (await Promise.all(ids.map((id) => endpoints.byId(id)))).flatMap((e) => (e ? [[e.id, e]] : [])),
    )
    // The attempts of a batch run side by side: one slow receiver must not hold up the others. Their outcomes are
    // written together, in one transaction: a commit each would cost more than the deliveries.
    // Opened once per endpoint and batch (an AES-GCM decryption each), and not kept beyond it.
    const opened = new Map<string, string[]>()
    const secretsOf = (e: Endpoint) => opened.get(e.id) ?? opened.set(e.id, options.signingSecrets(e)).get(e.id)!
    const settled = await Promise.allSettled(batch.map((d) => attempt(d, found.get(d.endpointId), secretsOf)))
    const done = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
    for (const r of settled) if (r.status === 'rejected') log.error({ err: r.reason }, 'webhook delivery step failed')
    // The streams move past their batches with the attempts' records: a worker that dies before reads them again.
    await deliveries.recordAll(
      done.map((d) => d.record),
      claimed.length === 0 ? undefined : (trx) => streams.advance(claimed, trx),
    )
    for (const { record, result } of done) logged(record, result)
    // Each endpoint's run of failures, attempt by attempt in order (a batch may hold several of one endpoint).
    const failingSince = new Map<string, bigint | number | null>(
      [...found.values()].map((e) => [e.id, e.failing_since]),
    )
    for (const { record, result } of done) {
      if (!result) continue
      const id = record.delivery.endpointId
      failingSince.set(id, await health(id, failingSince.get(id) ?? null, result))
    }
    return { attempts: batch.length, full }
  }

  let timer: NodeJS.Timeout | undefined
  let running: Promise<unknown> | undefined
  let stopped = false
  function schedule(delay: number, pollMs: number, failed: (err: unknown) => void): void {
    if (stopped) return
    timer = setTimeout(() => {
      running = step().then(
        // A full batch means more may be waiting: go on at once.
        ({ full }) => schedule(full ? 0 : pollMs, pollMs, failed),
        (err: unknown) => {
          failed(err)
          schedule(pollMs, pollMs, failed)
        },
      )
    }, delay)
  }

  return {
    /** One step that sees every event committed before it was called; how many attempts it made. */
    async runOnce(): Promise<number> {
      await streams.caughtUp()
      return (await step()).attempts
    },
    /** Runs a step every `pollMs` (at once while steps find full batches); `failed` hears of a step that threw. */
    start: (pollMs: number, failed: (err: unknown) => void) => schedule(0, pollMs, failed),
    /** Stops the timer and waits for the step in progress, so no attempt is cut off half recorded. */
    async stop(): Promise<void> {
      stopped = true
      if (timer) clearTimeout(timer)
      await running
    },
  }
}
