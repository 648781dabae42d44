// Schema pieces every HTML page route shares (the portal's and the console's): form bodies with their CSRF token,
// lenient page query strings, and the responses of a page route (HTML pages or redirects).
import { Type, type TProperties } from 'typebox'

export const csrfSchema = Type.String({ maxLength: 200, description: "The form's CSRF token" })

/** A form body: its fields and the CSRF token, nothing else. */
export const formBody = <T extends TProperties>(fields: T) =>
  Type.Object({ _csrf: csrfSchema, ...fields }, { additionalProperties: false })

// A page's query string is read leniently, unlike the API's: a link arrives with what mail clients, campaign tools
// and other sites add (utm_source, fbclid, …), and a person opening it expects the page, not a 400. Unknown
// parameters are ignored; handlers fall back from a value they cannot use.
export const pageQuery = <T extends TProperties>(fields: T) => Type.Object(fields, { additionalProperties: true })

const htmlPage = (description: string) => Type.String({ description: `${description} (text/html)` })
const redirect = Type.Null({ description: 'See Other: the Location header names the next page' })

/** The responses a page route declares: its own statuses plus those every page route can give. */
export function pageResponses(statuses: Record<number, string>) {
  const response: Record<number, ReturnType<typeof htmlPage> | typeof redirect> = {
    303: redirect,
    400: htmlPage('The form, re-rendered with what is wrong'),
    403: htmlPage(
      "Refused: the request came from another origin or without the form's token, or the role may not do this",
    ),
    404: htmlPage('No such page or item'),
    500: htmlPage('Something went wrong on our side'),
    503: htmlPage('The database cannot be reached for now'),
  }
  for (const [status, description] of Object.entries(statuses)) response[Number(status)] = htmlPage(description)
  return response
}
