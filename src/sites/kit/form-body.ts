// The only body a portal or console route takes: an HTML form, `application/x-www-form-urlencoded`, read strictly.
// Every other media type (the API's JSON included: its parser is removed from the site's scope) is 415, a form over
// the limit or not well-formed (a broken percent escape, bytes that are not UTF-8) 400 (site-scope.ts): the site's
// error page, a client error, never a 500 (anyone can send these, without an account).
import formbody from '@fastify/formbody'
import type { FastifyInstance } from 'fastify'
import { PageError } from './reply.js'

export const FORM_BODY_LIMIT_BYTES = 16 * 1024

/**
 * What a browser sends, decoded; a repeated field becomes an array (the schema then refuses it). `text` is the body
 * as @fastify/formbody decodes it: bytes that are not UTF-8 are U+FFFD there (a browser percent-encodes every
 * non-ASCII character, so a raw U+FFFD is never one of its forms).
 */
function parseForm(text: string): Record<string, string | string[]> {
  if (!wellFormed(text))
    throw new PageError(
      400,
      'Form not understood',
      'The form could not be read. Go back, reload the page and try again.',
    )
  // No prototype: a field named `__proto__` stays a field.
  const fields: Record<string, string | string[]> = Object.create(null)
  for (const [name, value] of new URLSearchParams(text)) {
    const earlier = fields[name]
    fields[name] = earlier === undefined ? value : [earlier, value].flat()
  }
  return fields
}

function wellFormed(text: string): boolean {
  if (text.includes('\uFFFD')) return false
  try {
    // Throws on a `%` not followed by two hex digits, and on escapes that do not decode as UTF-8.
    decodeURIComponent(text)
    return true
  } catch {
    return false
  }
}

/** Call in the site's scope, before its routes. */
export async function registerFormBody(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers()
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT_BYTES, parser: parseForm })
}
