// What the idempotency store refuses: a second request with a key whose first is still running, or a key used again
// with another body. The API answers them 409 and 422 (api/contract/domain-errors.ts).
export class IdempotencyConflict extends Error {
  constructor(readonly reason: 'in_progress' | 'reused') {
    super(
      reason === 'in_progress'
        ? 'a request with this idempotency key is still in progress'
        : 'this idempotency key was used with another body',
    )
  }
}
