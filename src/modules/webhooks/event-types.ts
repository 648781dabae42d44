// The catalogue of events an endpoint can subscribe to, each with the sentence the documents and the portal show.
// The types recorded by the database's triggers (pets, orders, messages) are checked against it by a test.
export const EVENT_TYPES = {
  'pet.created': 'A pet was added to the account (`data`: the Pet).',
  'order.created': 'An order was placed (`data`: the Order).',
  'order.updated': "An order's status changed (`data`: the Order, and `previous.status`).",
  'order.deleted': 'An order was cancelled (`data`: the Order as it was).',
  'message.delivered': 'A queued message was delivered (`data`: the Message).',
  'message.failed': 'A queued message failed after its last retry (`data`: the Message).',
  'key.created': 'An API key was created (`data`: the key as listed, never its secret).',
  'key.rolled': 'A key was rolled (`data`: the new key; `replaces`: the old one and until when it works).',
  'key.revoked': 'A key was revoked (`data`: the key).',
  'key.expiring': 'A key expires in 7 days, and again in 1 day (`data`: the key; `expiresIn`: `7d` or `1d`).',
  'key.banned': "A key was temporarily banned for sending on while refused (`data`: the key id and the ban's end).",
  'quota.threshold':
    "The day's usage crossed 80 % or 100 % of the plan's daily quota, once each a day (`data`: the figures).",
  'account.plan_changed': "The account's plan or quota changed (`data`: the account; `previous`: the plan before).",
  'account.suspended': 'The account was suspended by the operator (`data`: the account, with the reason).',
  'account.reactivated': 'The account was reactivated (`data`: the account).',
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

/** Whether an endpoint's stored subscription takes events of `type`. */
export const isSubscribed = (stored: string, type: string): boolean => stored === '*' || stored.includes(` ${type} `)
