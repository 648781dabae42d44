// CSRF: a state-changing request must come from the portal's configured origin (`Origin`, else `Referer`) AND carry
// the token of the visitor's session (HMAC of the session or pre-session id). Either missing: 403.
import { timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { hmacSha256 } from '../../kernel/hmac.js'

/**
 * `purpose` is signed into every token (the portal's `portal-csrf`, the console's `console-csrf`): a token of one
 * site is never accepted by the other, even if both used one secret.
 */
export function createCsrf({
  secret,
  publicUrl,
  purpose = 'portal-csrf',
}: {
  secret: string
  publicUrl: string
  purpose?: string
}) {
  const sign = hmacSha256(secret)
  const token = (binding: string): string => sign(`${purpose}:${binding}`).toString('base64url')

  function sameOrigin(request: FastifyRequest): boolean {
    // The configured origin only: a forged Host must not make another site's form "ours".
    const own = publicUrl
    const origin = request.headers.origin
    if (origin !== undefined) return origin === own
    const referer = request.headers.referer
    if (referer === undefined) return false
    try {
      return new URL(referer).origin === own
    } catch {
      return false
    }
  }

  return {
    token,
    /** Whether a state-changing request may act. */
    allows(request: FastifyRequest, binding: string | undefined, presented: unknown): boolean {
      if (!sameOrigin(request) || binding === undefined || typeof presented !== 'string') return false
      const want = Buffer.from(token(binding))
      const got = Buffer.from(presented)
      return got.length === want.length && timingSafeEqual(got, want)
    },
  }
}

export type Csrf = ReturnType<typeof createCsrf>
