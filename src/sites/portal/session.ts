// Portal sessions (src/web/sessions.ts) in portal_sessions: cookies HttpOnly, SameSite=Lax, Path=/; Secure and
// `__Host-` when PETSTORE_PUBLIC_URL is https, whatever the scheme of the hop from a TLS-terminating proxy.
import type { Clock } from '../../kernel/clock.js'
import { createSessions as createWebSessions, sessionCookies, type Visitor as WebVisitor } from '../kit/sessions.js'
import type { PortalRepository, PortalUser } from '../../modules/integrators/integrators.repository.js'

export const SESSION_IDLE_MS = 30 * 60 * 1000
export const SESSION_MAX_MS = 12 * 60 * 60 * 1000

export type Visitor = WebVisitor<PortalUser>

/** `secret` signs the pre-session cookies (the portal's CSRF secret). */
export function createSessions({
  repo,
  clock,
  publicUrl,
  secret,
}: {
  repo: PortalRepository
  clock: Clock
  publicUrl: string
  secret: string
}) {
  const cookies = sessionCookies({ publicUrl, base: 'portal', path: '/', sameSite: 'lax' })
  return createWebSessions<PortalUser>({
    store: repo,
    clock,
    cookies,
    idleMs: SESSION_IDLE_MS,
    maxMs: SESSION_MAX_MS,
    secret,
  })
}

export type Sessions = ReturnType<typeof createSessions>
