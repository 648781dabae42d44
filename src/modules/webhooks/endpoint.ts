// An endpoint as the service answers it: never its secret, except once when it is made or rotated.
export type DisabledReason = 'integrator' | 'gone' | 'failing' | 'operator'

export interface Endpoint {
  id: string
  url: string
  description: string
  /** `['*']`: every type, those added later too. */
  eventTypes: string[]
  enabled: boolean
  /** Why it is disabled; absent while enabled. */
  disabledReason?: DisabledReason
  /** Until when the secret before the last rotation still signs (each delivery then carries both signatures). */
  previousSecretExpiresAt?: string
  createdAt: string
  updatedAt: string
}
