// A log-in refused by the throttle (login-throttle.ts): too many failures for this email from this client, or from
// this client across emails. The sites show it as a 429 page with Retry-After (sites/kit/site-scope.ts).
export class TooManyLogins extends Error {
  constructor(
    /** Seconds until the oldest counted failure leaves the window. */
    readonly retryAfterSeconds: number,
    /** The words for whose failures: `for this address`, `from your network`. */
    readonly whose: string,
    /** What the page suggests besides waiting (the portal: resetting the password), a phrase after "Wait N minutes". */
    readonly advice: string,
  ) {
    super(`too many failed log-ins ${whose}`)
  }
}
