// The public types: the generated ones (sdk/src/generated/, from the service's own OpenAPI documents), with the
// int64 fields as bigint in results and as Int64Input in arguments.
import type { Int64Field, Int64Input } from './json.js'
import type { components as MessagesComponents } from './generated/messages.js'
import type { components, operations } from './generated/petstore.js'

type Schemas = components['schemas']
/** A result: int64 fields are bigint (a field of that name that is no number, a Message's `id`, stays as it is). */
type Exact<T> = { [K in keyof T]: K extends Int64Field ? (T[K] extends number ? bigint : T[K]) : T[K] }
/** An argument: int64 fields take a bigint, a safe-integer number or a decimal string. */
type Loose<T> = Lenient<{ [K in keyof T]: K extends Int64Field ? Int64Input : T[K] }>
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T]
/** Optional properties also take `undefined`, so callers compiled with `exactOptionalPropertyTypes` can pass one. */
type Lenient<T> = { [K in Exclude<keyof T, OptionalKeys<T>>]: T[K] } & { [K in OptionalKeys<T>]?: T[K] | undefined }

export type { Int64Input }
export type PetStatus = Schemas['PetStatus']
export type Pet = Exact<Schemas['Pet']>
export type NewPet = Loose<Schemas['NewPet']>
export type ListPetsPageParams = Lenient<NonNullable<operations['listPets']['parameters']['query']>>
export type ListPetsParams = Omit<ListPetsPageParams, 'cursor'>

export type Message = MessagesComponents['schemas']['Message']

export type OrderStatus = Schemas['OrderStatus']
export type Order = Exact<Schemas['Order']>
/** `shipDate` also takes a Date (sent as its ISO string). */
export type NewOrder = Omit<Loose<Schemas['NewOrder']>, 'shipDate'> & { shipDate?: string | Date | undefined }
export type ListOrdersPageParams = Lenient<NonNullable<operations['listOrders']['parameters']['query']>>
export type ListOrdersParams = Omit<ListOrdersPageParams, 'cursor'>

/**
 * An event, as `ps.events` reads it and `verifyWebhook` checks a delivery of it: a union discriminated by `type`,
 * so `if (event.type === 'pet.created')` narrows `event.data` to a Pet (int64 fields of `data` as bigint). An
 * endpoint subscribed to `*` is also sent types added after this version of the client: keep a default branch.
 */
export type WebhookEvent = ExactDeep<Schemas['Event']>
/**
 * Exact at every depth, as the body is parsed (`data`, and any other field a type adds, such as `previous`).
 * Distributes over a union, so the event union stays discriminated by `type`.
 */
type ExactDeep<T> = T extends readonly (infer U)[]
  ? ExactDeep<U>[]
  : T extends object
    ? {
        [K in keyof T]: K extends Int64Field ? ([NonNullable<T[K]>] extends [number] ? bigint : T[K]) : ExactDeep<T[K]>
      }
    : T
export type WebhookEventType = WebhookEvent['type']
/** The event of one type: `WebhookEventOf<'order.updated'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>
export type ListEventsPageParams = Lenient<NonNullable<operations['listEvents']['parameters']['query']>>
export type ListEventsParams = Omit<ListEventsPageParams, 'cursor'>

export type WebhookEndpoint = Schemas['WebhookEndpoint']
/** The endpoint as made or rotated: with its signing secret (`whsec_…`), which is shown only then. */
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret']
export type NewWebhookEndpoint = Lenient<Schemas['NewWebhookEndpoint']>
export type WebhookEndpointPatch = Lenient<Schemas['WebhookEndpointPatch']>
/** How long the old secret keeps signing too: default 86,400 s (a day), 0 stops it at once, at most 7 days. */
export type RotateWebhookSecretParams = Lenient<
  operations['rotateWebhookEndpointSecret']['requestBody']['content']['application/json']
>
/** One attempt to deliver an event to an endpoint (`ps.webhooks.endpoints.attempts`). */
export type WebhookAttempt = Schemas['WebhookAttempts'][number]
export type ListWebhookAttemptsPageParams = Lenient<
  NonNullable<operations['listWebhookAttempts']['parameters']['query']>
>
export type ListWebhookAttemptsParams = Omit<ListWebhookAttemptsPageParams, 'cursor'>
/** What `resend` and `recover` answer: how many events were made due to be sent again. */
export type WebhookResendResult = operations['recoverWebhookEvents']['responses'][202]['content']['application/json']
