// The account page's and its actions' request schemas. Ids are checked loosely (an unknown one gets the 404 page
// or a 400 saying so, not a schema error); the handlers explain bad values in words.
import { Type } from 'typebox'
import { formBody, pageQuery } from '../kit/page-schemas.js'

const id = Type.String({ maxLength: 200 })
const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }))

export const AccountParams = Type.Object({ id })
export const AccountKeyParams = Type.Object({ id, keyId: id })
/**
 * The account page: `done`, what was just done (its confirmation notice); `found`, why the search that opened it
 * matched (search.repository.ts, FOUND_BY).
 */
export const AccountPageQuery = pageQuery({
  done: Type.Optional(Type.String({ maxLength: 100 })),
  found: Type.Optional(Type.String({ maxLength: 200 })),
})
export const PlanBody = formBody({ plan: text(100), per_minute: text(40), per_day: text(40) })
/** Suspend and delete: the reason (checked in the handler, so a missing one gets a clear message). */
export const ReasonBody = formBody({ reason: text(4000) })
export const ConfirmBody = formBody({})
