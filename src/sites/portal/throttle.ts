// The portal's log-in throttle (src/web/login-throttle.ts) on portal_login_failures; its 429 page suggests a
// password reset, which lifts the limits for that email.
import type { Clock } from '../../kernel/clock.js'
import { createLoginThrottle as createWebLoginThrottle } from '../../modules/sign-in/login-throttle.js'
import type { PortalRepository } from '../../modules/integrators/integrators.repository.js'

export { ADDRESS_FAILURES_ALLOWED, LOGIN_FAILURES_ALLOWED, LOGIN_WINDOW_MS, type LoginAttempt } from '../../modules/sign-in/login-throttle.js'

export const createLoginThrottle = ({ repo, clock }: { repo: PortalRepository; clock: Clock }) =>
  createWebLoginThrottle({ store: repo, clock, advice: ', or reset your password' })
