// The portal's request schemas (HTML form bodies, query strings, key ids) and its responses, which are HTML
// pages or redirects. The routes are hidden from the API's OpenAPI document: the portal is not the API.
import { Type } from 'typebox'

const csrf = Type.String({ maxLength: 200, description: 'The form\'s CSRF token' })
// Generous upper bounds: the handlers explain what is wrong in words; these only keep absurd input out.
const email = Type.String({ maxLength: 320 })
const password = Type.String({ maxLength: 4096 })
const token = Type.String({ maxLength: 200 })

const form = <T extends Record<string, ReturnType<typeof Type.String>>>(fields: T) => Type.Object({ _csrf: csrf, ...fields }, { additionalProperties: false })

export const CredentialsBody = form({ email, password })
export const EmailBody = form({ email })
export const TokenBody = form({ token })
export const NewPasswordBody = form({ token, password })
export const CsrfOnlyBody = form({})
export const NewKeyBody = form({ name: Type.String({ maxLength: 400 }), expires: Type.String({ maxLength: 20 }) })
export const RollBody = form({ grace: Type.String({ maxLength: 20 }) })

export const TokenQuery = Type.Object({ token: Type.Optional(token) }, { additionalProperties: false })
export const UsageQuery = Type.Object({ key: Type.Optional(Type.String({ maxLength: 100 })) }, { additionalProperties: false })
export const NoQuery = Type.Object({}, { additionalProperties: false })
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
