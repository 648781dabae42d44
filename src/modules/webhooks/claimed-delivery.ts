// What the delivery worker attempts and records, shared by the queue of deliveries (retries, tests, events sent
// again: deliveries.repository.ts) and the endpoints' streams of first attempts (event-streams.repository.ts).

/** An event as it is sent. */
export interface ClaimedEvent {
  seq: bigint
  id: string
  type: string
  data: string
  created_at: string
}

export interface ClaimedDelivery {
  /** The delivery's row; none for a first attempt read from the endpoint's stream (a row is made if it fails). */
  seq: bigint | undefined
  endpointId: string
  accountId: string
  /** Attempts so far, this one included. */
  attempts: number
  event: ClaimedEvent
}

export interface AttemptRecord {
  delivery: ClaimedDelivery
  attemptedAt: number
  statusCode?: number
  errorClass?: string
  error?: string
  durationMs: number
  responseExcerpt?: string
  /** What becomes of the delivery: delivered, another attempt at `retryAt`, or failed for good. */
  outcome: { kind: 'delivered' } | { kind: 'retry'; retryAt: number } | { kind: 'failed' }
}
