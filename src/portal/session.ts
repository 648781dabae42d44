// Portal sessions: a random id in a cookie (HttpOnly, SameSite=Lax; Secure and `__Host-` when PETSTORE_PUBLIC_URL
// is https, whatever the scheme of the hop from a TLS-terminating proxy), the
// session itself in the database so every instance knows it. Visitors without a session get a "pre-session"
// cookie instead: their forms' CSRF tokens are bound to it (log-in CSRF included).
import type {} from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../clock.js'
import type { PortalRepository, PortalUser } from './portal.repository.js'
import { randomSecret } from './secrets.js'

export const SESSION_IDLE_MS = 30 * 60 * 1000
export const SESSION_MAX_MS = 12 * 60 * 60 * 1000
/** last_seen_at is written at most this often per session (the idle expiry does not need it finer). */
const TOUCH_EVERY_MS = 60 * 1000

export interface Visitor {
  /** The signed-in user, if the session cookie names a live session. */
  user?: PortalUser
  sessionId?: string
  /** What this visitor's CSRF token is bound to: the session id, else the pre-session id. */
  binding?: string
}

export function createSessions({ repo, clock, publicUrl }: { repo: PortalRepository; clock: Clock; publicUrl: string }) {
  // From configuration only: behind a TLS proxy the request itself arrives over http.
  const secure = publicUrl.startsWith('https:')
  const names = secure ? { session: '__Host-portal_session', pre: '__Host-portal_pre' } : { session: 'portal_session', pre: 'portal_pre' }
  const options = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure }

  async function liveSession(id: string): Promise<PortalUser | undefined> {
    const session = await repo.findSession(id)
    if (!session) return undefined
    const now = clock.now()
    if (now >= session.expiresAt || now - session.lastSeenAt >= SESSION_IDLE_MS) {
      await repo.deleteSession(id)
      return undefined
    }
    if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await repo.touchSession(id)
    return repo.findUser(session.userId)
  }

  return {
    async identify(request: FastifyRequest): Promise<Visitor> {
      const { session, pre } = names
      const sessionId = request.cookies[session]
      const user = sessionId ? await liveSession(sessionId) : undefined
      if (user) return { user, sessionId, binding: sessionId }
      return { binding: request.cookies[pre] }
    },

    /** Gives an anonymous visitor a pre-session cookie (before rendering a form); returns its id. */
    ensurePreSession(reply: FastifyReply, visitor: Visitor): string {
      if (visitor.binding) return visitor.binding
      visitor.binding = randomSecret()
      reply.setCookie(names.pre, visitor.binding, options)
      return visitor.binding
    },

    /** Log-in: a new session id (never one the visitor had before), the pre-session forgotten. */
    async start(request: FastifyRequest, reply: FastifyReply, visitor: Visitor, user: PortalUser): Promise<void> {
      if (visitor.sessionId) await repo.deleteSession(visitor.sessionId)
      const id = await repo.createSession(user.id, SESSION_MAX_MS, { userAgent: request.headers['user-agent'] ?? null, address: request.ip })
      const { session, pre } = names
      reply.setCookie(session, id, options).clearCookie(pre, options)
      await repo.purgeSessions(SESSION_IDLE_MS)
    },

    /** Ends every session of the user but the one this visitor holds (if it is one of that user's). */
    async endOthers(userId: string, visitor: Visitor): Promise<void> {
      await repo.deleteSessionsOf(userId, visitor.user?.id === userId ? visitor.sessionId : undefined)
    },

    async end(reply: FastifyReply, visitor: Visitor): Promise<void> {
      if (visitor.sessionId) await repo.deleteSession(visitor.sessionId)
      reply.clearCookie(names.session, options)
    },
  }
}

export type Sessions = ReturnType<typeof createSessions>
