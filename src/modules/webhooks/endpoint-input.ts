// The checks of an endpoint's fields that need no network: its description and its event types. (The URL's are
// the delivery target's, target-check.ts, which resolves the host.)
import { EVENT_TYPE_NAMES, isEventType, type Subscription } from './event-types.js'
import { EndpointRefused } from './webhooks.errors.js'

export const DESCRIPTION_MAX = 200
/** Longest time the secret before a rotation may keep signing: 7 days. */
export const GRACE_SECONDS_MAX = 7 * 86_400
const GRACE_SECONDS_DEFAULT = 86_400

export function checkDescription(raw: string | undefined): string {
  const description = (raw ?? '').trim()
  if (description.length > DESCRIPTION_MAX)
    throw new EndpointRefused('description', `the description may be up to ${DESCRIPTION_MAX} characters`)
  // Control and format characters would let a description disguise itself in the portal and the console.
  if (/[\p{Cc}\p{Cf}]/u.test(description))
    throw new EndpointRefused('description', 'the description may not contain control or format characters')
  return description
}

/** `['*']` or a non-empty list of known types (each once). */
export function checkEventTypes(raw: readonly string[]): Subscription {
  if (raw.length === 1 && raw[0] === '*') return '*'
  const unknown = raw.filter((t) => !isEventType(t))
  if (unknown.length > 0)
    throw new EndpointRefused(
      'eventTypes',
      `unknown event type ${unknown.map((t) => `"${t}"`).join(', ')}; the types are ${EVENT_TYPE_NAMES.join(', ')}, ` +
        'or "*" for all',
    )
  if (raw.length === 0) throw new EndpointRefused('eventTypes', 'choose at least one event type, or "*" for all')
  return [...new Set(raw)].filter(isEventType)
}

export function checkGraceSeconds(raw: number | undefined): number {
  const seconds = raw ?? GRACE_SECONDS_DEFAULT
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > GRACE_SECONDS_MAX)
    throw new EndpointRefused('graceSeconds', `the old secret may keep signing for 0 to ${GRACE_SECONDS_MAX} seconds`)
  return seconds
}
