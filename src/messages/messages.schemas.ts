// The quickstart Message (spec 2.6). `status` is `queued` when accepted, then `delivered` or `failed`.
import { Type, type Static } from 'typebox'

export const MESSAGE_MAX_LENGTH = 4096
export const MESSAGE_STATUSES = ['queued', 'delivered', 'failed'] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]

export const NewMessageSchema = Type.Object(
  { message: Type.String({ minLength: 1, maxLength: MESSAGE_MAX_LENGTH, description: `The text to send: 1 to ${MESSAGE_MAX_LENGTH} characters.` }) },
  { $id: 'NewMessage', title: 'NewMessage', additionalProperties: false },
)

export const MessageSchema = Type.Object(
  {
    id: Type.String({ description: 'Identifier of the message, assigned by the service (`msg_…`).' }),
    message: Type.String({ description: 'The text that was sent.' }),
    status: Type.Unsafe<MessageStatus>({
      type: 'string',
      enum: [...MESSAGE_STATUSES],
      description: '`queued`: accepted, not yet processed. `delivered`: handed to the configured sink. `failed`: every delivery attempt failed.',
    }),
    createdAt: Type.String({ format: 'date-time', description: 'Creation time, ISO 8601 UTC (`…Z`).' }),
  },
  { $id: 'Message', title: 'Message', additionalProperties: false },
)

export const MessageIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'The message id.' }) }, { additionalProperties: false })

export type NewMessage = Static<typeof NewMessageSchema>
export type Message = Static<typeof MessageSchema>
