// Gauges read when /metrics is scraped: what this build and process are, whether Redis answers, and what the
// database holds (the messages outbox, accounts by plan). With `serve --workers N` every worker reports them and
// the primary merges them per metric (prom-client's `aggregator`): a figure read from the shared database is the
// same in every worker, so it is taken once (`max`), never summed N times; Redis is up only if every worker
// reaches it (`min`); each worker's start time is a series of its own (label `worker`).
import { performance } from 'node:perf_hooks'
import { sql, type Kysely } from 'kysely'
import { Gauge, type Registry } from 'prom-client'
import type { Clock } from '../kernel/clock.js'
import type { Database } from '../db/schema.js'
import { buildRevision, packageInfo } from '../kernel/version.js'
import type { RedisState } from './dependency-checks.js'
import { registerWebhookGauges } from './webhook-gauges.js'

/** The worker slot a process fills under `serve --workers N` (set by cluster.ts; a replacement keeps its slot). */
const WORKER_SLOT_ENV = 'PETSTORE_WORKER_SLOT'
/** A scrape must answer while the database does not: its figures are NaN after this long. */
const QUERY_TIMEOUT_MS = 2_000

interface ScrapeSources {
  registry: Registry
  db?: Kysely<Database>
  clock?: Clock
  /** The webhooks' backlog at a time (modules/webhooks/backlog.ts); absent: no webhook gauges. */
  webhookBacklog?: (now: number) => Promise<{ waiting: number; oldestSeconds: number }>
  /** Redis's state (dependency-checks.ts); absent (no REDIS_URL): no `petstore_redis_up`. */
  redis?: () => Promise<RedisState>
  /** The plans (accounts/plans.ts), each with a series of the account gauge. */
  plans: readonly string[]
}

function withinTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), QUERY_TIMEOUT_MS)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/**
 * Queued messages and the age of the oldest. `count(*)` and `min(seq)` over `status = 'queued'` read only the
 * `messages_due (status, next_attempt_at, seq)` index (the queued range, not the delivered history); the oldest
 * one's `created_at` is one primary-key look-up.
 */
async function outbox(db: Kysely<Database>, now: number): Promise<{ depth: number; oldestSeconds: number }> {
  const queued = db.selectFrom('messages').where('status', '=', 'queued')
  const row = await db
    .selectNoFrom([
      queued.select((eb) => eb.fn.countAll().as('n')).as('depth'),
      db
        .selectFrom('messages')
        .select('created_at')
        .where(
          'seq',
          '=',
          queued.select((eb) => eb.fn.min('seq').as('s')),
        )
        .as('oldest'),
    ])
    .executeTakeFirstOrThrow()
  const oldest = row.oldest === null ? undefined : Date.parse(row.oldest)
  return { depth: Number(row.depth), oldestSeconds: oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000) }
}

async function accountsByPlan(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('accounts')
    .select(['plan', sql<string>`count(*)`.as('n')])
    .where('deleted_at', 'is', null)
    .groupBy('plan')
    .execute()
  return new Map(rows.map((r) => [r.plan, Number(r.n)]))
}

export function registerScrapeGauges({ registry, db, clock, redis, webhookBacklog, plans }: ScrapeSources): void {
  const registers = [registry]
  const { version } = packageInfo()
  new Gauge({
    name: 'petstore_build_info',
    help: 'Always 1; its labels say which version of the service, built from which revision, runs on which Node.js',
    labelNames: ['version', 'revision', 'node'] as const,
    registers,
    aggregator: 'max',
  }).set({ version, revision: buildRevision(), node: process.version }, 1)
  // prom-client's process_start_time_seconds is left out of a cluster's merged scrape (aggregator `omit`).
  new Gauge({
    name: 'petstore_worker_start_time_seconds',
    help: 'When each worker process started (Unix time); worker 0 without --workers. A change is a restart',
    labelNames: ['worker'] as const,
    registers,
  }).set({ worker: process.env[WORKER_SLOT_ENV] ?? '0' }, Math.round(performance.timeOrigin) / 1000)

  if (redis) {
    new Gauge({
      name: 'petstore_redis_up',
      help:
        'Whether Redis answers for the rate limits (1), or the per-process fallback limits (0); only with ' +
        'REDIS_URL',
      registers,
      aggregator: 'min',
      async collect() {
        this.set((await redis()) === 'ok' ? 1 : 0)
      },
    })
  }
  if (!db) return
  const now = () => (clock ? clock.now() : Date.now())
  if (webhookBacklog) registerWebhookGauges({ registry, backlog: () => webhookBacklog(now()), withinTimeout })
  // prom-client collects every metric of a scrape at once: both outbox gauges share one read.
  let reading: Promise<{ depth: number; oldestSeconds: number }> | undefined
  const readOutbox = () => (reading ??= withinTimeout(outbox(db, now())).finally(() => (reading = undefined)))
  const outboxGauge = (
    name: string,
    help: string,
    pick: (figures: { depth: number; oldestSeconds: number }) => number,
  ) =>
    new Gauge({
      name,
      help,
      registers,
      aggregator: 'max',
      async collect() {
        try {
          this.set(pick(await readOutbox()))
        } catch {
          // The database does not answer: NaN (unknown) rather than a stale figure or a false 0; the scrape answers.
          this.set(Number.NaN)
        }
      },
    })
  outboxGauge(
    'petstore_messages_outbox_depth',
    'Messages waiting for delivery (queued, retries included)',
    (f) => f.depth,
  )
  outboxGauge(
    'petstore_messages_outbox_oldest_age_seconds',
    'Age of the oldest message waiting for delivery (0 when none waits)',
    (f) => f.oldestSeconds,
  )
  new Gauge({
    name: 'petstore_accounts',
    help: 'Accounts (not deleted) by plan',
    labelNames: ['plan'] as const,
    registers,
    aggregator: 'max',
    async collect() {
      try {
        const counts = await withinTimeout(accountsByPlan(db))
        for (const plan of new Set([...plans, ...counts.keys()])) this.set({ plan }, counts.get(plan) ?? 0)
      } catch {
        for (const plan of plans) this.set({ plan }, Number.NaN)
      }
    },
  })
}
