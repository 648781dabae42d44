// What the webhooks module refuses, in its own words; the API and the portal say it in theirs
// (api/contract/domain-errors.ts, the portal's forms).

/** A field of an endpoint is unacceptable; the message says why and may be shown as is. */
export class EndpointRefused extends Error {
  constructor(
    readonly field: 'url' | 'description' | 'eventTypes' | 'graceSeconds',
    message: string,
  ) {
    super(message)
  }
}

/** The account already has as many endpoints as it may. */
export class EndpointLimitReached extends Error {
  constructor(readonly limit: number) {
    super(`an account may have up to ${limit} webhook endpoints; delete one first`)
  }
}

/** No endpoint (or event) with that id in the account. */
export class WebhookNotFound extends Error {
  constructor(
    readonly kind: 'endpoint' | 'event',
    readonly id: string,
  ) {
    super(`no ${kind} ${id} in the account`)
  }
}

/** A test event was asked of a disabled endpoint (it would never be sent). */
export class EndpointDisabled extends Error {
  constructor(readonly id: string) {
    super(`endpoint ${id} is disabled`)
  }
}
