// The console's own request schemas (log-in, setup). Page responses and form helpers: src/web/page-schemas.ts.
import { Type } from 'typebox'
import { formBody, pageQuery } from '../kit/page-schemas.js'

const email = Type.String({ maxLength: 320 })
const password = Type.String({ maxLength: 4096 })
const code = Type.String({ maxLength: 64 })

/** Log-in: where to go afterwards (a relative path under /console, checked by safeNext). */
export const ConsoleLoginBody = formBody({
  email,
  password,
  code,
  next: Type.Optional(Type.String({ maxLength: 1000 })),
})
export const ConsoleLoginQuery = pageQuery({ next: Type.Optional(Type.String()) })
export const SetupParams = Type.Object({ token: Type.String() })
// The form's hidden `username` (the operator's email, for password managers) comes along from a browser; unused.
export const SetupPasswordBody = formBody({ password, username: Type.Optional(email) })
export const SetupCodeBody = formBody({ code })
export const CsrfOnlyBody = formBody({})
export const NoQuery = pageQuery({})
