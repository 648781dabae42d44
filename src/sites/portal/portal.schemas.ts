// The portal's request schemas (HTML form bodies, query strings, key ids) and its responses, which are HTML
// pages or redirects. The routes are hidden from the API's OpenAPI document: the portal is not the API.
import { Type } from 'typebox'
import { csrfSchema as csrf, formBody as form, pageQuery } from '../kit/page-schemas.js'

export { pageResponses } from '../kit/page-schemas.js'

// Generous upper bounds: the handlers explain what is wrong in words; these only keep absurd input out.
const email = Type.String({ maxLength: 320 })
const password = Type.String({ maxLength: 4096 })
const token = Type.String({ maxLength: 200 })

export const CredentialsBody = form({ email, password })
/** Log-in: where to go afterwards (a relative path under /portal/, checked by safeNext). */
export const LoginBody = Type.Object(
  { _csrf: csrf, email, password, next: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
)
export const EmailBody = form({ email })
export const TokenBody = form({ token })
export const NewPasswordBody = form({ token, password })
export const CsrfOnlyBody = form({})
// `scopes`: the Permissions checkboxes (repeated: one value, or several); `preset`: the read-only shortcut button.
const scopeValue = Type.String({ maxLength: 40 })
const scopes = Type.Optional(Type.Union([scopeValue, Type.Array(scopeValue, { maxItems: 10 })]))
export const NewKeyBody = form({
  name: Type.String({ maxLength: 400 }),
  expires: Type.String({ maxLength: 20 }),
  scopes,
  preset: Type.Optional(Type.String({ maxLength: 20 })),
})
export const RestrictBody = form({ scopes })
export const RollBody = form({ grace: Type.String({ maxLength: 20 }) })
/** A request for a higher plan: the plan (checked by the handler) and a note (up to 1,000 characters, told there). */
export const PlanRequestBody = form({ plan: Type.String({ maxLength: 40 }), note: Type.String({ maxLength: 8000 }) })

// Page query strings are read leniently (web/page-schemas.ts); a known parameter has no length rule either, so the
// handler falls back from a value it cannot use (an unusable token shows the expired-link page, an unknown key id
// the whole account). Values stay strings of well-formed text (http/validation.ts), and a parameter given twice is
// still refused (http/query-guard.ts).
const optionalText = () => Type.Optional(Type.String())

export const TokenQuery = pageQuery({ token: optionalText() })
/** /portal/login: `next`, the page to return to after logging in. */
export const LoginQuery = pageQuery({ next: optionalText() })
/** An emailed link's token, in its path (any text: an unusable one gets the expired-link page, not a 400). */
export const TokenParams = Type.Object({ token: Type.String() })
/** /portal/usage: `key`, one key's figures; `requested=1` after a plan request was sent. */
export const UsageQuery = pageQuery({ key: optionalText(), requested: optionalText() })
/** /portal/activity: `before`, the sequence number to page back from (the last entry shown). */
export const ActivityQuery = pageQuery({ before: optionalText() })
/** /portal/keys: `sent=1` after a verification link was sent again. */
export const KeysQuery = pageQuery({ sent: optionalText() })
export const NoQuery = pageQuery({})
export const KeyParams = Type.Object({ keyId: Type.String({ pattern: '^key_[0-9a-f]{1,64}$' }) })

// Account settings (settings.routes.ts).
export const ChangePasswordBody = form({ current_password: password, new_password: password })
export const ChangeEmailBody = form({ new_email: email, password })
export const PasswordOnlyBody = form({ password })
/** /portal/account: `done`, what was just done (a confirmation is shown). */
export const AccountQuery = pageQuery({ done: optionalText() })
