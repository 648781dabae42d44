// The `data` of each event type, for the OpenAPI document (and so the SDK's typed events): the object as the API
// answers it, or, for what the API has no operation for (keys, accounts, quotas), the shape the portal shows.
import { Type, type TSchema } from 'typebox'
import type { EventType } from '../../modules/webhooks/event-types.js'
import { OrderSchema } from './orders.schemas.js'

const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()])
const KeyData = Type.Object(
  {
    id: Type.String({ description: 'The key (`key_…`).' }),
    name: nullable(Type.String()),
    prefix: Type.String({ description: 'The start of the key, as the portal shows it.' }),
    environment: Type.String({ enum: ['live', 'test'] }),
    scopes: Type.Array(Type.String()),
    state: Type.String({ description: '`active`, `expired`, `revoked`, `rolled` …' }),
    createdAt: Type.String(),
    expiresAt: nullable(Type.String()),
    revokedAt: nullable(Type.String()),
    replacedBy: nullable(Type.String()),
    graceEndsAt: nullable(Type.String()),
  },
  { additionalProperties: false, description: 'The key as the portal lists it; never its secret.' },
)
const KeyRolled = Type.Object(
  {
    ...KeyData.properties,
    replaces: Type.Object(
      { id: Type.String(), prefix: Type.String(), graceEndsAt: Type.String() },
      { additionalProperties: false, description: 'The key rolled, and until when it still works.' },
    ),
  },
  { additionalProperties: false },
)
const KeyExpiring = Type.Object(
  { ...KeyData.properties, expiresIn: Type.String({ enum: ['7d', '1d'] }) },
  { additionalProperties: false },
)
const KeyBanned = Type.Object(
  {
    keyId: Type.String(),
    bannedUntil: Type.String({ description: 'When the ban ends (ISO 8601, UTC).' }),
  },
  { additionalProperties: false },
)
const Quota = Type.Object({ perMinute: Type.Integer(), perDay: Type.Integer() }, { additionalProperties: false })
const AccountData = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    plan: Type.String(),
    quota: Quota,
    suspendedAt: nullable(Type.String()),
    suspensionReason: nullable(Type.String()),
  },
  { additionalProperties: false },
)
const PlanChanged = Type.Object(
  {
    ...AccountData.properties,
    previous: Type.Object(
      { plan: Type.String(), perMinute: Type.Integer(), perDay: Type.Integer() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
const QuotaThreshold = Type.Object(
  {
    threshold: Type.Integer({ enum: [80, 100], description: 'The percentage crossed.' }),
    day: Type.String({ description: 'The UTC day (`2030-01-31`).' }),
    used: Type.Integer({ description: "Requests counted against today's quota when it was crossed." }),
    limit: Type.Integer({ description: 'The daily quota.' }),
  },
  { additionalProperties: false },
)

const MessageData = Type.Object(
  {
    id: Type.String({ description: 'The message (`msg_…`).' }),
    message: Type.String(),
    status: Type.String({ enum: ['queued', 'delivered', 'failed'] }),
    createdAt: Type.String(),
    truncated: Type.Optional(
      Type.Literal(true, {
        description:
          'Present when the text would take more than 16 KiB of JSON: `message` is then its first 3,000 ' +
          'characters, so that the event stays under 20 KB (`GET /messages/{id}` has the whole text).',
      }),
    ),
  },
  { additionalProperties: false, description: 'The Message, as `GET /messages/{id}` answers it.' },
)
const OrderChange = Type.Object(
  {
    ...OrderSchema.properties,
    previous: Type.Object(
      { status: Type.Unsafe<string>({ $ref: 'OrderStatus' }) },
      { additionalProperties: false, description: 'What the changed fields were before.' },
    ),
  },
  { additionalProperties: false, description: 'The Order, and what changed.' },
)
const TestData = Type.Object(
  { endpointId: Type.String(), message: Type.String() },
  { additionalProperties: false, description: 'Which endpoint the test was sent to.' },
)
export const EVENT_DATA: Record<EventType, TSchema> = {
  'pet.created': Type.Unsafe({ $ref: 'Pet' }),
  'order.created': Type.Unsafe({ $ref: 'Order' }),
  'order.updated': OrderChange,
  'order.deleted': Type.Unsafe({ $ref: 'Order' }),
  'message.delivered': MessageData,
  'message.failed': MessageData,
  'webhook.test': TestData,
  'key.created': KeyData,
  'key.rolled': KeyRolled,
  'key.revoked': KeyData,
  'key.expiring': KeyExpiring,
  'key.banned': KeyBanned,
  'quota.threshold': QuotaThreshold,
  'account.plan_changed': PlanChanged,
  'account.suspended': AccountData,
  'account.reactivated': AccountData,
}
