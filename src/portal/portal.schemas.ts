// The portal's request schemas (HTML form bodies, query strings, key ids) and its responses, which are HTML
// pages or redirects. The routes are hidden from the API's OpenAPI document: the portal is not the API.
import { Type, type TProperties } from 'typebox'

const csrf = Type.String({ maxLength: 200, description: 'The form\'s CSRF token' })
// Generous upper bounds: the handlers explain what is wrong in words; these only keep absurd input out.
const email = Type.String({ maxLength: 320 })
const password = Type.String({ maxLength: 4096 })
const token = Type.String({ maxLength: 200 })

const form = <T extends Record<string, ReturnType<typeof Type.String>>>(fields: T) => Type.Object({ _csrf: csrf, ...fields }, { additionalProperties: false })

export const CredentialsBody = form({ email, password })
/** Log-in: where to go afterwards (a relative path under /portal/, checked by safeNext). */
export const LoginBody = Type.Object({ _csrf: csrf, email, password, next: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false })
export const EmailBody = form({ email })
export const TokenBody = form({ token })
export const NewPasswordBody = form({ token, password })
export const CsrfOnlyBody = form({})
export const NewKeyBody = form({ name: Type.String({ maxLength: 400 }), expires: Type.String({ maxLength: 20 }) })
export const RollBody = form({ grace: Type.String({ maxLength: 20 }) })

// A page's query string is read leniently, unlike the API's: a link arrives with what mail clients, campaign tools
// and other sites add (utm_source, fbclid, …), and a person opening it expects the page, not a 400. Unknown
// parameters are ignored, and a known one has no length rule, so the handler falls back from a value it cannot use
// (an unusable token shows the expired-link page, an unknown key id the whole account). Values stay strings of
// well-formed text (http/validation.ts), and a parameter given twice is still refused (http/query-guard.ts).
const pageQuery = <T extends TProperties>(fields: T) => Type.Object(fields, { additionalProperties: true })
const optionalText = () => Type.Optional(Type.String())

export const TokenQuery = pageQuery({ token: optionalText() })
/** /portal/login: `next`, the page to return to after logging in. */
export const LoginQuery = pageQuery({ next: optionalText() })
/** An emailed link's token, in its path (any text: an unusable one gets the expired-link page, not a 400). */
export const TokenParams = Type.Object({ token: Type.String() })
export const UsageQuery = pageQuery({ key: optionalText() })
/** /portal/keys: `sent=1` after a verification link was sent again. */
export const KeysQuery = pageQuery({ sent: optionalText() })
export const NoQuery = pageQuery({})
export const KeyParams = Type.Object({ keyId: Type.String({ pattern: '^key_[0-9a-f]{1,64}$' }) })

const htmlPage = (description: string) => Type.String({ description: `${description} (text/html)` })
const redirect = Type.Null({ description: 'See Other: the Location header names the next page' })

/** The responses a portal route declares: its own statuses plus those every portal route can give. */
export function pageResponses(statuses: Record<number, string>) {
  const response: Record<number, ReturnType<typeof htmlPage> | typeof redirect> = {
    303: redirect,
    400: htmlPage('The form, re-rendered with what is wrong'),
    403: htmlPage('Refused: the request came from another origin or without the form\'s token'),
    404: htmlPage('No such page or key'),
    500: htmlPage('Something went wrong on our side'),
    503: htmlPage('The database cannot be reached for now'),
  }
  for (const [status, description] of Object.entries(statuses)) response[Number(status)] = htmlPage(description)
  return response
}

// Account settings (settings.routes.ts).
export const ChangePasswordBody = form({ current_password: password, new_password: password })
export const ChangeEmailBody = form({ new_email: email, password })
export const PasswordOnlyBody = form({ password })
/** /portal/account: `done`, what was just done (a confirmation is shown). */
export const AccountQuery = pageQuery({ done: optionalText() })
