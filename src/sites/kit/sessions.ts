// Server-side sessions for the portal and the console: a random id in a cookie, the session itself (stored under
// the id's hash) in the database so every instance knows it, an idle and an absolute expiry. Visitors without a
// session get a "pre-session" cookie instead: their forms' CSRF tokens are bound to it (log-in CSRF included).
// Each site passes its store (its own tables) and its cookie settings; `Secure` comes from PETSTORE_PUBLIC_URL,
// never from the request (behind a TLS proxy the request itself arrives over http).
import type {} from '@fastify/cookie'
import { timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../../kernel/clock.js'
import { hmacSha256 } from '../../kernel/hmac.js'
import { randomSecret } from '../../kernel/secrets.js'
import type { SessionStore } from '../../modules/sign-in/session-store.js'

/** last_seen_at is written at most this often per session (the idle expiry does not need it finer). */
const TOUCH_EVERY_MS = 60 * 1000

interface SessionCookies {
  /** Cookie names (with their `__Host-`/`__Secure-` prefix when secure). */
  session: string
  pre: string
  options: { path: string; httpOnly: true; sameSite: 'lax' | 'strict'; secure: boolean }
}

/**
 * Cookie names and options for a site. `__Host-` needs `Path=/`; a site on a narrower path gets `__Secure-`
 * (still only set over https, and only by a secure origin).
 */
export function sessionCookies({
  publicUrl,
  base,
  path,
  sameSite,
}: {
  publicUrl: string
  base: string
  path: string
  sameSite: 'lax' | 'strict'
}): SessionCookies {
  const secure = publicUrl.startsWith('https:')
  const prefix = !secure ? '' : path === '/' ? '__Host-' : '__Secure-'
  return {
    session: `${prefix}${base}_session`,
    pre: `${prefix}${base}_pre`,
    options: { path, httpOnly: true, sameSite, secure },
  }
}

export interface Visitor<User> {
  /** The signed-in user, if the session cookie names a live session. */
  user?: User
  sessionId?: string
  /** What this visitor's CSRF token is bound to: the session id, else the pre-session value (one the server made). */
  binding?: string
}

/**
 * Pre-session values as `id.signature`, the signature an HMAC of the id with the site's secret (kept in the
 * database: every instance accepts what another made). The purpose (the cookie's name) keeps it apart from the
 * site's CSRF tokens, which the same secret signs.
 */
function preSessionValues(secret: string, purpose: string) {
  const sign = hmacSha256(secret)
  const signature = (id: string) => sign(`pre-session:${purpose}:${id}`).toString('base64url')
  return {
    issue(): string {
      const id = randomSecret()
      return `${id}.${signature(id)}`
    },
    /** The value if this service made it, else undefined. */
    verified(value: string | undefined): string | undefined {
      const dot = value?.indexOf('.') ?? -1
      if (value === undefined || dot <= 0) return undefined
      const want = Buffer.from(signature(value.slice(0, dot)))
      const got = Buffer.from(value.slice(dot + 1))
      return got.length === want.length && timingSafeEqual(got, want) ? value : undefined
    },
  }
}

export function createSessions<User extends { id: string }>({
  store,
  clock,
  cookies,
  idleMs,
  maxMs,
  secret,
}: {
  store: SessionStore<User>
  clock: Clock
  cookies: SessionCookies
  idleMs: number
  maxMs: number
  secret: string
}) {
  const { options } = cookies
  const preSessions = preSessionValues(secret, cookies.pre)

  async function liveSession(id: string): Promise<User | undefined> {
    const session = await store.findSession(id)
    if (!session) return undefined
    const now = clock.now()
    if (now >= session.expiresAt || now - session.lastSeenAt >= idleMs) {
      await store.deleteSession(id)
      return undefined
    }
    const user = await store.findUser(session.userId)
    if (!user) {
      await store.deleteSession(id)
      return undefined
    }
    if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await store.touchSession(id)
    return user
  }

  return {
    cookies,
    async identify(request: FastifyRequest): Promise<Visitor<User>> {
      const sessionId = request.cookies[cookies.session]
      const user = sessionId ? await liveSession(sessionId) : undefined
      if (user) return { user, sessionId, binding: sessionId }
      // A pre-session cookie the server did not make is ignored: the next form gets a fresh one.
      return { binding: preSessions.verified(request.cookies[cookies.pre]) }
    },

    /** Gives an anonymous visitor a pre-session cookie (before rendering a form); returns its value. */
    ensurePreSession(reply: FastifyReply, visitor: Visitor<User>): string {
      if (visitor.binding) return visitor.binding
      visitor.binding = preSessions.issue()
      reply.setCookie(cookies.pre, visitor.binding, options)
      return visitor.binding
    },

    /** Log-in: a new session id (never one the visitor had before), the pre-session forgotten; returns the id. */
    async start(request: FastifyRequest, reply: FastifyReply, visitor: Visitor<User>, user: User): Promise<string> {
      if (visitor.sessionId) await store.deleteSession(visitor.sessionId)
      const id = await store.createSession(user.id, maxMs, {
        userAgent: request.headers['user-agent'] ?? null,
        address: request.ip,
      })
      reply.setCookie(cookies.session, id, options).clearCookie(cookies.pre, options)
      await store.purgeSessions(idleMs)
      return id
    },

    /** Ends every session of the user but the one this visitor holds (if it is one of that user's). */
    async endOthers(userId: string, visitor: Visitor<User>): Promise<void> {
      await store.deleteSessionsOf(userId, visitor.user?.id === userId ? visitor.sessionId : undefined)
    },

    async end(reply: FastifyReply, visitor: Visitor<User>): Promise<void> {
      if (visitor.sessionId) await store.deleteSession(visitor.sessionId)
      reply.clearCookie(cookies.session, options)
    },
  }
}

export type Sessions<User extends { id: string }> = ReturnType<typeof createSessions<User>>
