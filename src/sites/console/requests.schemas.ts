// /console/requests' request schemas. The handlers explain bad values in words (a missing reason, quotas that are
// not whole numbers); these only keep absurd input out.
import { Type } from 'typebox'
import { formBody, pageQuery } from '../kit/page-schemas.js'

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }))

/** The list: `done`, what was just decided (its notice); `after`, the request the page of waiting ones starts after. */
export const RequestsQuery = pageQuery({ done: Type.Optional(Type.String()), after: Type.Optional(Type.String()) })
export const RequestParams = Type.Object({ id: Type.String({ maxLength: 200 }) })
/** Approve: the quotas, for a request for enterprise only. */
export const ApproveBody = formBody({ per_minute: text(40), per_day: text(40) })
/** Decline: the reason, mailed to the integrator (at most 500 characters, told by the handler). */
export const DeclineBody = formBody({ reason: text(4000) })
