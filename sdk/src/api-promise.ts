// What every call returns: a Promise of the result that also has `.withResponse()` (as openai-node's APIPromise),
// giving the result with the HTTP Response it came from, its X-Request-Id and the quota it reported.
import type { RateLimit } from './quota.js'

export interface WithResponse<T> {
  data: T
  /** The last attempt's Response (its body already read). */
  response: Response
  requestId: string | undefined
  /** Undefined when the answer had no X-RateLimit-* headers. */
  rateLimit: RateLimit | undefined
}

export class ApiPromise<T> extends Promise<T> {
  readonly #answer: Promise<WithResponse<T>>

  constructor(answer: Promise<WithResponse<T>>) {
    // The base Promise is never used: then/catch/finally read `answer` (and `await` calls then).
    super((resolve) => resolve(undefined as T))
    this.#answer = answer
  }

  // Promises made by then/catch/finally are plain ones.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise
  }

  /** The result together with the Response, request id and quota of the answer. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#answer
  }

  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#answer.then((answer) => answer.data).then(onfulfilled, onrejected)
  }

  override catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.then(undefined, onrejected)
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#answer.then((answer) => answer.data).finally(onfinally)
  }
}
