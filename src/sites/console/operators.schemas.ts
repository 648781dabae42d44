// /console/operators' request schemas. The handlers explain bad values in words (an address that is not one, a role
// that does not exist); these only keep absurd input out.
import { Type } from 'typebox'
import { formBody, pageQuery } from '../kit/page-schemas.js'

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }))

/** The list: `done`, what was just done (its notice). */
export const OperatorsQuery = pageQuery({ done: Type.Optional(Type.String()) })
export const OperatorParams = Type.Object({ id: Type.String({ maxLength: 200 }) })
/** Create operator: Email and Role. */
export const CreateOperatorBody = formBody({ email: text(320), role: text(40) })
/** Change role: the new role. */
export const RoleBody = formBody({ role: text(40) })
export const DisableBody = formBody({})
