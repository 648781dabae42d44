// Webhook endpoint and event schemas (issue 36): validation, serialization and the OpenAPI document.
import { Type, type Static } from 'typebox'
import { requestText } from '../contract/schemas.js'
import { pagingParameters } from '../contract/paging.js'
import type { Same } from '../contract/same-type.js'
import type { Endpoint } from '../../modules/webhooks/endpoint.js'
import { DESCRIPTION_MAX, GRACE_SECONDS_MAX } from '../../modules/webhooks/endpoint-input.js'
import { EVENT_TYPE_NAMES, EVENT_TYPES, type EventType } from '../../modules/webhooks/event-types.js'
import { EVENT_DATA } from './event-data.schemas.js'

const catalogue = EVENT_TYPE_NAMES.map((t) => `\`${t}\`: ${EVENT_TYPES[t]}`).join(' ')
const EventTypeName = Type.String({ enum: [...EVENT_TYPE_NAMES], description: catalogue })

const eventTypes = Type.Array(Type.String({ enum: ['*', ...EVENT_TYPE_NAMES] }), {
  minItems: 1,
  maxItems: EVENT_TYPE_NAMES.length + 1,
  description: 'The event types sent to the endpoint, or `["*"]` for every type (those added later too).',
})
const url = requestText(
  'Where events are POSTed: `https://` (`http://` too outside production), no user name or password, no fragment; ' +
    'its host must not resolve to a private, loopback, link-local or otherwise internal address.',
  { minLength: 1, maxLength: 2048 },
)
const description = requestText('What the endpoint is for, shown in the portal.', { maxLength: DESCRIPTION_MAX })

export const NewWebhookEndpointSchema = Type.Object(
  {
    url,
    description: Type.Optional(description),
    eventTypes,
    enabled: Type.Optional(Type.Boolean({ description: 'Default `true`.' })),
  },
  { $id: 'NewWebhookEndpoint', title: 'NewWebhookEndpoint', additionalProperties: false },
)

export const WebhookEndpointPatchSchema = Type.Object(
  {
    url: Type.Optional(url),
    description: Type.Optional(description),
    eventTypes: Type.Optional(eventTypes),
    enabled: Type.Optional(
      Type.Boolean({ description: '`true` enables it again (and forgets its failures); `false` disables it.' }),
    ),
  },
  { $id: 'WebhookEndpointPatch', title: 'WebhookEndpointPatch', additionalProperties: false, minProperties: 1 },
)

const endpointProperties = {
  id: Type.String({ description: 'Identifier assigned on creation (`ep_…`).' }),
  url: Type.String(),
  description: Type.String(),
  eventTypes: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Type.Optional(
    Type.Union([Type.Literal('integrator'), Type.Literal('gone'), Type.Literal('failing'), Type.Literal('operator')], {
      description:
        'Why it is disabled: by you (`integrator`), it answered 410 (`gone`), every attempt failed for ' +
        '`WEBHOOK_DISABLE_AFTER` (`failing`), or by the operator.',
    }),
  ),
  previousSecretExpiresAt: Type.Optional(
    Type.String({ description: 'Until then the secret before the last rotation also signs each delivery.' }),
  ),
  createdAt: Type.String(),
  updatedAt: Type.String(),
}

export const WebhookEndpointSchema = Type.Object(endpointProperties, {
  $id: 'WebhookEndpoint',
  title: 'WebhookEndpoint',
  additionalProperties: false,
})

export const WebhookEndpointWithSecretSchema = Type.Object(
  {
    ...endpointProperties,
    secret: Type.String({
      description:
        'The signing secret (`whsec_…`), shown only in this response: keep it where your receiver can read it.',
    }),
  },
  { $id: 'WebhookEndpointWithSecret', title: 'WebhookEndpointWithSecret', additionalProperties: false },
)

export const WebhookEndpointsSchema = Type.Array(Type.Unsafe<Endpoint>({ $ref: 'WebhookEndpoint' }), {
  $id: 'WebhookEndpoints',
  title: 'WebhookEndpoints',
  description: "The account's endpoints (at most 10), oldest first.",
})

export const RotateSecretSchema = Type.Object(
  {
    graceSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: GRACE_SECONDS_MAX,
        description: 'How long the old secret keeps signing too (default 86400, a day; 0: it stops at once).',
      }),
    ),
  },
  { additionalProperties: false },
)

/** One event type's shape: `type` is its name, `data` its object (a union discriminated by `type`). */
const eventOf = (type: EventType) =>
  Type.Object(
    {
      id: Type.String({ description: 'Unique id (`evt_…`); the `webhook-id` of its deliveries.' }),
      type: Type.Literal(type),
      timestamp: Type.String({ description: 'When the change happened (ISO 8601, UTC).' }),
      data: EVENT_DATA[type],
    },
    { additionalProperties: false, title: `Event ${type}`, description: EVENT_TYPES[type] },
  )

export const EventSchema = Type.Union(
  EVENT_TYPE_NAMES.map((type) => eventOf(type)),
  { $id: 'Event', title: 'Event', description: `An event; \`type\` says which. ${catalogue}` },
)

export const EventsSchema = Type.Array(Type.Unsafe<Static<typeof EventSchema>>({ $ref: 'Event' }), {
  $id: 'Events',
  title: 'Events',
  description: 'A bare array of events, newest first.',
})

export const ListEventsQuery = Type.Object(
  { ...pagingParameters('events', 'type'), type: Type.Optional(EventTypeName) },
  { additionalProperties: false },
)

const DeliveryAttemptSchema = Type.Object(
  {
    id: Type.String({ description: "The attempt's position in the log." }),
    eventId: Type.String(),
    eventType: Type.String(),
    attemptedAt: Type.String({ description: 'When the attempt started (ISO 8601, UTC).' }),
    statusCode: Type.Optional(Type.Integer({ description: "The endpoint's status code, if it answered." })),
    errorClass: Type.Optional(
      Type.String({
        description:
          'Why it failed: `http_status` (not a 2xx), `redirect` (a 3xx, not followed), `timeout`, `refused`, `tls`, ' +
          '`dns`, `blocked_address` (the host resolves to an address webhooks may not reach), `network`, ' +
          '`endpoint_disabled`.',
      }),
    ),
    error: Type.Optional(Type.String({ description: 'What went wrong, in one line.' })),
    durationMs: Type.Integer(),
    responseExcerpt: Type.Optional(Type.String({ description: 'The first 1 KiB of the answer.' })),
  },
  { additionalProperties: false },
)

export const DeliveryAttemptsSchema = Type.Array(DeliveryAttemptSchema, {
  $id: 'WebhookAttempts',
  title: 'WebhookAttempts',
  description: 'Attempts, newest first.',
})

export const EndpointIdParams = Type.Object(
  { endpointId: requestText('The endpoint id (`ep_…`).', { minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
)
export const EventIdParams = Type.Object(
  { eventId: requestText('The event id (`evt_…`).', { minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
)

const matches: Same<Static<typeof WebhookEndpointSchema>, Endpoint> = true
void matches
