// Console sessions (src/web/sessions.ts) in operator_sessions, apart from the portal's: cookies on Path=/console,
// HttpOnly, SameSite=Strict; Secure and `__Secure-` when PETSTORE_PUBLIC_URL is https (`__Host-` would need
// Path=/). Idle expiry 30 minutes, absolute 12 hours. A disabled operator's sessions end.
import type { Clock } from '../../kernel/clock.js'
import type { Operator } from '../../modules/operators/operator.js'
import type { OperatorsRepository } from '../../modules/operators/operators.repository.js'
import { createSessions, sessionCookies, type Visitor } from '../kit/sessions.js'

export const CONSOLE_SESSION_IDLE_MS = 30 * 60 * 1000
export const CONSOLE_SESSION_MAX_MS = 12 * 60 * 60 * 1000

export type OperatorVisitor = Visitor<Operator>

/** `secret` signs the pre-session cookies (the console's CSRF secret). */
export function createConsoleSessions({
  operators,
  clock,
  publicUrl,
  secret,
}: {
  operators: OperatorsRepository
  clock: Clock
  publicUrl: string
  secret: string
}) {
  const cookies = sessionCookies({ publicUrl, base: 'console', path: '/console', sameSite: 'strict' })
  return createSessions<Operator>({
    store: operators,
    clock,
    cookies,
    idleMs: CONSOLE_SESSION_IDLE_MS,
    maxMs: CONSOLE_SESSION_MAX_MS,
    secret,
  })
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>
