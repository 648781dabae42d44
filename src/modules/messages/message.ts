// The quickstart Message (spec 2.6) as the service keeps it and answers it: `queued` when accepted, then
// `delivered` or `failed`. The API's schemas (api/messages/messages.schemas.ts) describe the same shape to clients and
// are checked against this type when the code compiles.
export const MESSAGE_MAX_LENGTH = 4096
export const MESSAGE_STATUSES = ['queued', 'delivered', 'failed'] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]

export interface Message {
  id: string
  message: string
  status: MessageStatus
  createdAt: string
}
