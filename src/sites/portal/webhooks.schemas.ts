// The webhooks pages' request schemas (webhooks.routes.ts): the ids in their paths, their forms and query strings.
// Ids are checked by shape here (a malformed one never reaches the service); whether the account has them is the
// service's to say (another account's endpoint reads as a missing one: the 404 page).
import { Type } from 'typebox'
import { formBody as form, pageQuery } from '../kit/page-schemas.js'

const endpointId = Type.String({ pattern: '^ep_[0-9a-f]{1,64}$' })
const eventId = Type.String({ pattern: '^evt_[0-9a-f]{1,64}$' })

export const EndpointParams = Type.Object({ endpointId })
export const EventParams = Type.Object({ endpointId, eventId })

// Generous upper bounds: the service explains what is wrong in words (a URL over 2,048 characters, a description
// over 200); these only keep absurd input out. `events`: `all`, or `chosen` with the ticked `eventTypes` (one value
// or several).
const eventType = Type.String({ maxLength: 60 })
export const EndpointBody = form({
  url: Type.String({ maxLength: 4096 }),
  description: Type.String({ maxLength: 2000 }),
  events: Type.String({ maxLength: 20 }),
  eventTypes: Type.Optional(Type.Union([eventType, Type.Array(eventType, { maxItems: 30 })])),
})
export const RotateBody = form({ grace: Type.String({ maxLength: 20 }) })
export const RecoverBody = form({ since: Type.String({ maxLength: 20 }) })

// Read leniently, as every page's query (kit/page-schemas.ts): a value the handler cannot use is ignored.
const optionalText = () => Type.Optional(Type.String())
/** /portal/webhooks: `done=deleted` after an endpoint was deleted. */
export const WebhooksQuery = pageQuery({ done: optionalText() })
/** An endpoint's page: `before` pages the log back (the last attempt shown); `done` and `count` say what was done. */
export const EndpointQuery = pageQuery({ before: optionalText(), done: optionalText(), count: optionalText() })
