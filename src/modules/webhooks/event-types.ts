// The catalogue of events an endpoint can subscribe to, each with the sentence the documents and the portal show.
// The types recorded by the database's triggers (pets, orders, messages) are checked against it by a test.
export const EVENT_TYPES = {
  'pet.created': 'A pet was added to the account (`data`: the Pet).',
  'order.created': 'An order was placed (`data`: the Order).',
  'order.updated': "An order's status changed (`data`: the Order, and `previous.status`).",
  'order.deleted': 'An order was cancelled (`data`: the Order as it was).',
  'message.delivered': 'A queued message was delivered (`data`: the Message).',
  'message.failed': 'A queued message failed after its last retry (`data`: the Message).',
  'webhook.test': 'Sent on request from the portal or `POST /v1/webhook-endpoints/{id}/test`; nothing changed.',
} as const

export type EventType = keyof typeof EVENT_TYPES
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[]

export const isEventType = (value: string): value is EventType => Object.hasOwn(EVENT_TYPES, value)

/** An endpoint's subscription: every type (those added later too), or the ones chosen. */
export type Subscription = '*' | readonly EventType[]

/** As stored: `*`, or each type with a space on both sides (what the triggers search for). */
export const encodeSubscription = (s: Subscription): string =>
  s === '*' ? '*' : ` ${EVENT_TYPE_NAMES.filter((t) => s.includes(t)).join(' ')} `

export const decodeSubscription = (stored: string): Subscription =>
  stored === '*' ? '*' : stored.split(' ').filter(isEventType)
