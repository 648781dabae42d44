// What a log line says of a failure: one phrase, never a stack (stacks are for errors nobody expected).
/**
 * The reason of a failure in one phrase: the message (or code) of the error, or of the first one of an AggregateError.
 */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0])
  if (!(error instanceof Error)) return String(error)
  return error.message || (error as { code?: string }).code || error.name
}
