// A new key's secret carried across the redirect after "Create" or "Roll" (Post/Redirect/Get), without the server
// ever keeping it: secrets are stored only as hashes. The secret travels in a cookie that only the browser holds,
// encrypted and authenticated (AES-256-GCM) under a key derived from a server secret every instance shares, bound
// to the visitor's session and the key's id (as associated data), readable only by the page that shows it (Path),
// for about two minutes, and cleared by the first page that reads it.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import type {} from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../../kernel/clock.js'

/** How long the secret may wait for its page: the redirect is followed at once, so two minutes is generous. */
export const FLASH_SECONDS = 120
const IV_BYTES = 12
const TAG_BYTES = 16

/** The page that shows a new key's secret once (the redirect target of Create and Roll). */
export const shownOncePath = (keyId: string) => `/portal/keys/${keyId}/created`

export function createSecretFlash({
  secret,
  publicUrl,
  clock,
  pathOf = shownOncePath,
}: {
  secret: string
  publicUrl: string | undefined
  clock: Clock
  /** The page that shows the secret of item `id` (default: a new key's; the webhooks pages pass theirs). */
  pathOf?: (id: string) => string
}) {
  const key = Buffer.from(hkdfSync('sha256', secret, '', 'petstore portal: new key secret cookie', 32))
  // `__Host-` would need Path=/; `__Secure-` allows the narrow path and still makes the browser insist on https.
  const secure = publicUrl?.startsWith('https:') ?? false
  const name = secure ? '__Secure-portal_new_key' : 'portal_new_key'
  const options = (keyId: string) => ({
    path: pathOf(keyId),
    httpOnly: true,
    sameSite: 'strict' as const,
    secure,
  })
  const boundTo = (sessionId: string, keyId: string) => Buffer.from(`portal-new-key\0${sessionId}\0${keyId}`)

  return {
    /** Hands the browser the secret of key `keyId` for the page `shownOncePath(keyId)` of this session. */
    give(reply: FastifyReply, input: { sessionId: string; keyId: string; secret: string }): void {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(boundTo(input.sessionId, input.keyId))
      const plain = JSON.stringify({ secret: input.secret, until: clock.now() + FLASH_SECONDS * 1000 })
      const sealed = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
      reply.setCookie(name, sealed.toString('base64url'), { ...options(input.keyId), maxAge: FLASH_SECONDS })
    },

    /**
     * The secret the browser brought for key `keyId` in this session, if it is genuine and fresh; the cookie is
     * cleared either way, so a reload shows nothing. A cookie from another session, for another key, altered or
     * expired opens to nothing.
     */
    take(
      request: FastifyRequest,
      reply: FastifyReply,
      input: { sessionId: string; keyId: string },
    ): string | undefined {
      const sealed = request.cookies[name]
      if (sealed === undefined) return undefined
      reply.clearCookie(name, options(input.keyId))
      const bytes = Buffer.from(sealed, 'base64url')
      if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), {
          authTagLength: TAG_BYTES,
        }).setAAD(boundTo(input.sessionId, input.keyId))
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
        const plain = Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8')
        const { secret, until } = JSON.parse(plain) as { secret: unknown; until: unknown }
        if (typeof secret !== 'string' || typeof until !== 'number' || clock.now() >= until) return undefined
        return secret
      } catch {
        // Not ours, altered, or bound to another session or key.
        return undefined
      }
    },
  }
}
