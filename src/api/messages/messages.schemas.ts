// The quickstart Message (spec 2.6). `status` is `queued` when accepted, then `delivered` or `failed`.
import { Type, type Static } from 'typebox'
import { requestText } from '../contract/schemas.js'
import type { Same } from '../contract/same-type.js'
import {
  MESSAGE_MAX_LENGTH,
  MESSAGE_STATUSES,
  type Message,
  type MessageStatus,
} from '../../modules/messages/message.js'

export const NewMessageSchema = Type.Object(
  {
    message: requestText(`The text to send: 1 to ${MESSAGE_MAX_LENGTH} characters.`, {
      minLength: 1,
      maxLength: MESSAGE_MAX_LENGTH,
    }),
  },
  { $id: 'NewMessage', title: 'NewMessage', additionalProperties: false },
)

export const MessageSchema = Type.Object(
  {
    id: Type.String({ description: 'Identifier of the message, assigned by the service (`msg_…`).' }),
    message: Type.String({ description: 'The text that was sent.' }),
    status: Type.Unsafe<MessageStatus>({
      type: 'string',
      enum: [...MESSAGE_STATUSES],
      description:
        '`queued`: accepted, not yet processed. `delivered`: handed to the configured sink. `failed`: every delivery ' +
        'attempt failed.',
    }),
    createdAt: Type.String({ format: 'date-time', description: 'Creation time, ISO 8601 UTC (`…Z`).' }),
  },
  { $id: 'Message', title: 'Message', additionalProperties: false },
)

export const MessageIdParams = Type.Object(
  { id: requestText('The message id.', { minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
)

// The schema describes exactly the module's type (a mismatch does not compile).
const schemaMatchesType: Same<Static<typeof MessageSchema>, Message> = true
void schemaMatchesType

/** Examples for the OpenAPI document. */
export const MESSAGE_EXAMPLES: Record<string, unknown> = {
  NewMessage: { message: 'Hello, pet store' },
  Message: {
    id: 'msg_5f2b9c0e7a41d3c86b1e9f04',
    message: 'Hello, pet store',
    status: 'queued',
    createdAt: '2026-11-21T12:00:00.000Z',
  },
}

/** 4,096 characters can take 12 bytes each as JSON (`\ud83d\udc36` escapes), so the body may be up to ~48 KiB. */
export const MESSAGES_BODY_LIMIT_BYTES = 64 * 1024
