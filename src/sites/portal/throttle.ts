// The portal's log-in throttle (src/web/login-throttle.ts) on portal_login_failures; its 429 page suggests a
// password reset, which lifts the limits for that email.
import type { Clock } from '../../kernel/clock.js'
import { createLoginThrottle as createWebLoginThrottle } from '../../modules/sign-in/login-throttle.js'
import type { FastifyRequest } from 'fastify'
import { emailKeyOf } from '../../kernel/email-address.js'
import { verifyPassword } from '../../kernel/passwords.js'
import type { PortalRepository, PortalUser } from '../../modules/integrators/integrators.repository.js'

export { LOGIN_FAILURES_ALLOWED } from '../../modules/sign-in/login-throttle.js'

export const createLoginThrottle = ({ repo, clock }: { repo: PortalRepository; clock: Clock }) =>
  createWebLoginThrottle({ store: repo, clock, advice: ', or reset your password' })

/**
 * Whether `password` is the signed-in user's (a form that asks for it again: settings, sudo mode's confirmation); a
 * wrong one is a failed log-in for this address and client (429 when too many), so no such form is a way around the
 * log-in limits.
 */
export function passwordConfirmation({ repo, clock }: { repo: PortalRepository; clock: Clock }) {
  const throttle = createLoginThrottle({ repo, clock })
  return async (request: FastifyRequest, user: PortalUser, password: string): Promise<boolean> => {
    const who = { email: emailKeyOf(user.email), address: request.ip }
    const attempt = await throttle.attempt({ ...who, passwordChangedAt: user.password_changed_at })
    if (!(await verifyPassword(password, user.password_hash))) return false
    await attempt.succeeded()
    return true
  }
}
